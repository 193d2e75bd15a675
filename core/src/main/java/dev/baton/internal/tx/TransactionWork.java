package dev.baton.internal.tx;

import java.sql.Connection;
import java.sql.SQLException;

/**
 * A unit of work that decides how its transaction ends ({@link Ending}); {@link SqlWork} always commits.
 *
 * @param <T> its value
 */
@FunctionalInterface
public interface TransactionWork<T> {
    /** Runs the work. */
    Ending<T> run(Connection connection) throws SQLException;

    /** {@code work}, committed. */
    static <T> TransactionWork<T> committing(SqlWork<T> work) {
        return c -> Ending.commit(work.run(c));
    }
}
