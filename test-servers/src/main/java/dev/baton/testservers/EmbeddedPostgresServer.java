package dev.baton.testservers;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.io.UncheckedIOException;

/**
 * A PostgreSQL 18 server that its caller owns and stops: {@link TestDatabases#startPostgresEmbedded()}. Unlike
 * {@link TestDatabases#postgresEmbedded()}'s shared server it has no JVM shutdown hook, so a program can stop it after
 * everything that uses it, in its own order. Thread-safe.
 */
public final class EmbeddedPostgresServer implements AutoCloseable {
    private final TestDatabase database;
    private final EmbeddedPostgres server;

    EmbeddedPostgresServer(TestDatabase database, EmbeddedPostgres server) {
        this.database = database;
        this.server = server;
    }

    /**
     * The server's database {@code postgres}, as user {@code postgres} without a password.
     *
     * @return the database
     */
    public TestDatabase database() {
        return database;
    }

    /**
     * Stops the server and deletes its data directory; later calls do nothing. Connections still open are cut.
     *
     * @throws UncheckedIOException when the server could not be stopped
     */
    @Override
    public void close() {
        try {
            server.close();
        } catch (IOException e) {
            throw new UncheckedIOException("stopping the embedded PostgreSQL " + database, e);
        }
    }
}
