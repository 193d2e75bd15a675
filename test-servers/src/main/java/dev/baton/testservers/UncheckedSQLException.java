package dev.baton.testservers;

import java.sql.SQLException;
import java.util.Objects;

/**
 * A {@link SQLException} raised by a test helper, rethrown unchecked with the statement that failed in its
 * message.
 */
public final class UncheckedSQLException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private final String sql;

    /**
     * Wraps a failure of one statement.
     *
     * @param message what was being done, including the SQL
     * @param sql the statement that failed, or {@code null} when the failure was not tied to one statement
     * @param cause the driver's exception
     */
    public UncheckedSQLException(String message, String sql, SQLException cause) {
        super(message, Objects.requireNonNull(cause, "cause"));
        this.sql = sql;
    }

    /**
     * The statement that failed.
     *
     * @return the SQL text, or {@code null} when the failure was not tied to one statement (opening a connection)
     */
    public String sql() {
        return sql;
    }

    /**
     * The driver's exception.
     *
     * @return the wrapped {@link SQLException}
     */
    @Override
    public synchronized SQLException getCause() {
        return (SQLException) super.getCause();
    }
}
