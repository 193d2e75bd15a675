package dev.baton.spi;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;

/**
 * Messages between sessions that the database delivers when the sending transaction commits (PostgreSQL's
 * {@code NOTIFY}/{@code LISTEN}): how a worker in another process learns that a queue has a new row without waiting for
 * its next poll. A database without them returns {@link #NONE}; its workers are woken only by commits in their own JVM,
 * and poll. Implementations are stateless and thread-safe.
 */
public interface Notifications {

    /** No notifications: {@link #supported()} is false and every other method throws. */
    Notifications NONE = new Notifications() {
        @Override
        public boolean supported() {
            return false;
        }

        @Override
        public String notifySql() {
            throw new UnsupportedOperationException("this database has no notifications");
        }

        @Override
        public void listen(Connection connection, String quotedChannel) {
            throw new UnsupportedOperationException("this database has no notifications");
        }

        @Override
        public List<String> await(Connection connection, int timeoutMillis) {
            throw new UnsupportedOperationException("this database has no notifications");
        }

        @Override
        public void unlistenAll(Connection connection) {
            throw new UnsupportedOperationException("this database has no notifications");
        }
    };

    /** True when the database delivers notifications. */
    boolean supported();

    /**
     * The statement that sends one notification inside the current transaction, delivered when it commits and never
     * if it rolls back; its two bind parameters are the channel (unquoted, as given) and the payload. PostgreSQL:
     * {@code SELECT pg_notify(?, ?)}.
     */
    String notifySql();

    /**
     * Subscribes {@code connection} (in autocommit mode, held by the caller for as long as it listens) to a channel.
     *
     * @param quotedChannel the channel, already validated and quoted as an identifier
     * @throws SQLException on a database failure
     */
    void listen(Connection connection, String quotedChannel) throws SQLException;

    /**
     * Waits up to {@code timeoutMillis} for notifications on a listening connection and returns their payloads (empty
     * when none came). Sends no statement while it waits.
     *
     * @throws SQLException when the connection failed (the caller opens a new one)
     */
    List<String> await(Connection connection, int timeoutMillis) throws SQLException;

    /**
     * Unsubscribes {@code connection} from every channel and drops the notifications it received and has not handed
     * out, before the caller gives it back to its pool: a pooled session that still listens keeps receiving every
     * notification of the channel for the application code that borrows it next, which never reads them. PostgreSQL:
     * {@code UNLISTEN *}.
     *
     * @throws SQLException on a database failure (the caller then discards the connection)
     */
    void unlistenAll(Connection connection) throws SQLException;
}
