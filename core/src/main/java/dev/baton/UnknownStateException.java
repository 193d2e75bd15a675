package dev.baton;

import org.jspecify.annotations.Nullable;

/**
 * A stored state code that the state machine does not know, read from the host's table (for example {@code 'paid '}
 * or {@code 7}). Baton never maps an unknown value to a default.
 */
public final class UnknownStateException extends BatonException {
    private static final long serialVersionUID = 1L;
    private final String table;
    private final transient Object id;
    private final transient @Nullable Object rawValue;

    /** Creates an exception naming the table, the row id and the raw stored value. */
    public UnknownStateException(String table, String column, Object id, @Nullable Object rawValue, String machine) {
        super("unknown stored state " + describe(rawValue) + " in " + table + "." + column + " for id " + id
                + " (state machine '" + machine + "' has no state with that code)");
        this.table = table;
        this.id = id;
        this.rawValue = rawValue;
    }

    /** The table the value was read from. */
    public String table() {
        return table;
    }

    /** The id of the row that holds the value. */
    public Object id() {
        return id;
    }

    /** The raw value as the driver returned it; may be null. */
    public @Nullable Object rawValue() {
        return rawValue;
    }

    private static String describe(@Nullable Object raw) {
        if (raw == null) {
            return "NULL";
        }
        return raw instanceof String ? "'" + raw + "'" : String.valueOf(raw);
    }
}
