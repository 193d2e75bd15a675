package dev.baton.spi;

/**
 * A dialect's reading of a {@link java.sql.SQLException}: what kind of failure it is, and for a unique violation
 * which constraint refused the row. Classification is per driver and vendor code, never per SQLState alone
 * (Connector/J reports a lock-wait timeout as 40001, pgjdbc does not treat 57P01 as a connection error).
 *
 * @param kind the kind of failure
 * @param constraint the unique constraint or index named by the server, or {@code null} when none is known
 */
public record SqlError(Kind kind, String constraint) {

    /** Kinds of failure that change what Baton does next. */
    public enum Kind {
        /** A unique constraint said no: reported as a result, never retried. */
        UNIQUE_VIOLATION,
        /** Deadlock, serialization failure, lock timeout: the transaction was (or must be) rolled back; retry. */
        TRANSIENT,
        /** The connection is gone; the server rolled back whatever was not committed; retry on a new one. */
        CONNECTION_LOST,
        /** Anything else: not retried. */
        OTHER
    }

    /** An error that is neither transient nor a unique violation. */
    public static final SqlError OTHER = new SqlError(Kind.OTHER, null);
    /** A transient error. */
    public static final SqlError TRANSIENT = new SqlError(Kind.TRANSIENT, null);
    /** A lost connection. */
    public static final SqlError CONNECTION_LOST = new SqlError(Kind.CONNECTION_LOST, null);

    /** A unique violation of the named constraint (may be null when the server does not say). */
    public static SqlError uniqueViolation(String constraint) {
        return new SqlError(Kind.UNIQUE_VIOLATION, constraint);
    }

    /** True for errors worth retrying on a fresh transaction. */
    public boolean retryable() {
        return kind == Kind.TRANSIENT || kind == Kind.CONNECTION_LOST;
    }
}
