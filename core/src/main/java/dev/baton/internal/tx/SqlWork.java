package dev.baton.internal.tx;

import java.sql.Connection;
import java.sql.SQLException;

/**
 * A unit of database work on one connection.
 *
 * @param <T> its result
 */
@FunctionalInterface
public interface SqlWork<T> {
    /** Runs the work. */
    T run(Connection connection) throws SQLException;
}
