package dev.baton;

import java.sql.SQLException;
import org.jspecify.annotations.Nullable;

/**
 * A database failure that Baton could not turn into a result: a non-transient error, or a transient one that
 * outlasted the retry policy. Keeps the {@link SQLException} as its cause and exposes its codes.
 */
public class DataAccessException extends BatonException {
    private static final long serialVersionUID = 1L;
    private final @Nullable String sqlState;
    private final int vendorCode;

    /** Wraps a driver exception, with a message that says what Baton was doing. */
    public DataAccessException(String message, SQLException cause) {
        super(
                message + ": " + cause.getMessage() + " [SQLState " + cause.getSQLState() + ", vendor code "
                        + cause.getErrorCode() + "]",
                cause);
        this.sqlState = cause.getSQLState();
        this.vendorCode = cause.getErrorCode();
    }

    /** Creates an exception that has no driver cause (for example an update count that breaks an invariant). */
    public DataAccessException(String message) {
        super(message);
        this.sqlState = null;
        this.vendorCode = 0;
    }

    /** The SQLState of the driver exception, or null. */
    public @Nullable String sqlState() {
        return sqlState;
    }

    /** The vendor error code of the driver exception, or 0. */
    public int vendorCode() {
        return vendorCode;
    }
}
