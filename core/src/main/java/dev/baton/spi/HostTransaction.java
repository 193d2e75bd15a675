package dev.baton.spi;

import java.sql.Connection;
import java.sql.SQLException;

/**
 * A transaction the host has open, as {@link HostTransactions#current} found it. Used by one operation on the thread
 * that found it, then dropped.
 */
public interface HostTransaction {

    /**
     * The transaction's connection, for one operation. Baton runs statements on it and gives it back with
     * {@link #release}; it never closes, commits or rolls it back, nor changes its autocommit or isolation.
     *
     * @throws SQLException if the host cannot hand the connection out
     */
    Connection connection() throws SQLException;

    /**
     * True when the transaction is read-only (for example Spring's {@code @Transactional(readOnly = true)}): Baton then
     * refuses its writes before any SQL ({@link dev.baton.ReadOnlyTransactionException}) and still runs its reads in
     * it. Default false.
     */
    default boolean readOnly() {
        return false;
    }

    /** Gives back a connection {@link #connection()} returned. Default: nothing to do. */
    default void release(Connection connection) {}

    /**
     * Runs {@code action} after the transaction commits, on the committing thread; never if it rolls back. Used for
     * listener calls. Exceptions {@code action} throws are Baton's to catch.
     */
    void afterCommit(Runnable action);
}
