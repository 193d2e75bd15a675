package dev.baton.spi;

import org.jspecify.annotations.Nullable;

/**
 * A dialect's reading of a {@link java.sql.SQLException}: what kind of failure it is, for a unique violation which
 * constraint refused the row, and for an undefined column which column the statement named. Classification is per driver and vendor code, never per SQLState alone
 * (Connector/J reports a lock-wait timeout as 40001, pgjdbc does not treat 57P01 as a connection error).
 *
 * @param kind the kind of failure
 * @param constraint the unique constraint or index named by the server, or {@code null} when none is known
 * @param column the column the server said does not exist ({@link Kind#UNDEFINED_COLUMN}), or {@code null}
 */
public record SqlError(Kind kind, @Nullable String constraint, @Nullable String column) {

    /** An error that names no column. */
    public SqlError(Kind kind, @Nullable String constraint) {
        this(kind, constraint, null);
    }

    /** Kinds of failure that change what Baton does next. */
    public enum Kind {
        /** A unique constraint said no: reported as a result, never retried. */
        UNIQUE_VIOLATION,
        /**
         * Deadlock, serialization failure, lock timeout, statement timeout or cancel (PostgreSQL 57014, MariaDB
         * {@code max_statement_time}, a JDBC query timeout): the transaction was (or must be) rolled back; retry.
         */
        TRANSIENT,
        /**
         * A transient failure that the same work is likely to meet again at once: the transaction lost a write
         * conflict to another one that touched the same rows (a MySQL or MariaDB deadlock, which on a Galera
         * cluster is also how a writeset that failed certification against another node's commit is reported,
         * error 1213 at {@code COMMIT}). Nothing of it committed; retried like {@link #TRANSIENT}, with more
         * attempts and full jitter, because under contention the retry meets the same writers again.
         */
        CONFLICT,
        /** The connection is gone; the server rolled back whatever was not committed; retry on a new one. */
        CONNECTION_LOST,
        /**
         * The server refused a write because it is read-only: a hot standby, a primary demoted by a failover, a
         * server its operators switched to read-only to fence it (PostgreSQL 25006, MySQL and MariaDB 1290 and 1836,
         * SQL Server 3906). The connection reaches a server that is no longer the writer: Baton aborts it, so that the
         * pool does not hand it out again, and retries on a new one; never an attempt of the row, never a dead letter.
         */
        READ_ONLY,
        /**
         * The statement names a column the table does not have (PostgreSQL 42703, MySQL and MariaDB 1054, SQL Server
         * 207): the table does not fit its binding; reported as a {@code SchemaMismatchException}, never retried.
         */
        UNDEFINED_COLUMN,
        /**
         * The database refused the statement's own values or the row they make: a data exception (SQLState class 22:
         * too long, out of range, not a valid value) or an integrity constraint other than a unique key (class 23:
         * not null, foreign key, check). The same statement would be refused again; not retried. A claim queue
         * dead-letters the row whose outcome the database refuses this way (or by a {@link #UNIQUE_VIOLATION}); any
         * other error is thrown and the row left to its lease.
         */
        VALUE_REFUSED,
        /** Anything else: not retried. */
        OTHER
    }

    /** An error that is neither transient nor a unique violation. */
    public static final SqlError OTHER = new SqlError(Kind.OTHER, null);
    /** A transient error. */
    public static final SqlError TRANSIENT = new SqlError(Kind.TRANSIENT, null);
    /** A lost write conflict (deadlock, certification failure). */
    public static final SqlError CONFLICT = new SqlError(Kind.CONFLICT, null);
    /** A lost connection. */
    public static final SqlError CONNECTION_LOST = new SqlError(Kind.CONNECTION_LOST, null);
    /** A write refused by a read-only server. */
    public static final SqlError READ_ONLY = new SqlError(Kind.READ_ONLY, null);
    /** A value or row the database refused (data exception, integrity constraint other than a unique key). */
    public static final SqlError VALUE_REFUSED = new SqlError(Kind.VALUE_REFUSED, null);

    /** A unique violation of the named constraint (may be null when the server does not say). */
    public static SqlError uniqueViolation(String constraint) {
        return new SqlError(Kind.UNIQUE_VIOLATION, constraint);
    }

    /** A statement named a column that does not exist ({@code column} bare, without table or quotes; may be null). */
    public static SqlError undefinedColumn(String column) {
        return new SqlError(Kind.UNDEFINED_COLUMN, null, column);
    }

    /**
     * True when the statement's own values are at fault ({@link Kind#VALUE_REFUSED} or {@link Kind#UNIQUE_VIOLATION}):
     * the same statement would be refused again, whatever the server's load or the connection.
     */
    public boolean refusesValues() {
        return kind == Kind.VALUE_REFUSED || kind == Kind.UNIQUE_VIOLATION;
    }

    /** True for errors worth retrying on a fresh transaction. */
    public boolean retryable() {
        return kind == Kind.TRANSIENT
                || kind == Kind.CONFLICT
                || kind == Kind.CONNECTION_LOST
                || kind == Kind.READ_ONLY;
    }

    /**
     * True for the errors of a failover ({@link Kind#CONNECTION_LOST}, {@link Kind#READ_ONLY}): the connection must
     * not be used again, and the connections borrowed after it are asked whether their server still takes writes.
     */
    public boolean failover() {
        return kind == Kind.CONNECTION_LOST || kind == Kind.READ_ONLY;
    }
}
