package dev.baton;

import java.sql.Connection;
import java.sql.SQLException;

/**
 * The body of a transaction {@link Baton#inTransaction} runs: it may use the connection directly and call Baton's
 * data-source operations, which join the same transaction.
 *
 * @param <T> its result
 */
@FunctionalInterface
public interface TransactionWork<T> {
    /**
     * Runs the body; must not commit, roll back or keep the connection.
     *
     * @throws SQLException to roll back (a transient one is retried)
     */
    T run(Connection connection) throws SQLException;
}
