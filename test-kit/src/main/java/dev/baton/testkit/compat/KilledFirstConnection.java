package dev.baton.testkit.compat;

import dev.baton.testservers.ConnectionSource;
import dev.baton.testservers.TestDatabase;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A data source whose first {@code kills} connections the server has already terminated when they are handed out
 * (as after a failover or {@code pg_terminate_backend}); later ones are healthy. Proves that Baton retries a lost
 * connection on a fresh one, against a real server.
 */
public final class KilledFirstConnection implements ConnectionSource {
    private final TestDatabase db;
    private final AtomicInteger kills;

    /** Kills the first {@code kills} connections. */
    public KilledFirstConnection(TestDatabase db, int kills) {
        this.db = db;
        this.kills = new AtomicInteger(kills);
    }

    @Override
    public Connection getConnection() throws SQLException {
        Connection c = db.connect();
        if (kills.getAndDecrement() > 0) {
            try (Connection admin = db.connect()) {
                db.kind().terminate(c, admin);
            }
        }
        return c;
    }
}
