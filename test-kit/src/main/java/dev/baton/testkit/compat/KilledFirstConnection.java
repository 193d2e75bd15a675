package dev.baton.testkit.compat;

import dev.baton.testkit.ConnectionSource;
import dev.baton.testkit.DatabaseKind;
import dev.baton.testkit.TestDatabase;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
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
            long id;
            try (Statement s = c.createStatement();
                    ResultSet rs = s.executeQuery(
                            switch (db.kind()) {
                                case POSTGRES -> "SELECT pg_backend_pid()";
                                case MARIADB, MYSQL -> "SELECT CONNECTION_ID()";
                                case SQLSERVER -> "SELECT @@SPID";
                            })) {
                rs.next();
                id = rs.getLong(1);
            }
            try (Connection admin = db.connect();
                    Statement s = admin.createStatement()) {
                if (db.kind() == DatabaseKind.POSTGRES) {
                    s.executeQuery("SELECT pg_terminate_backend(" + id + ")").close();
                } else if (db.kind() == DatabaseKind.SQLSERVER) {
                    s.execute("KILL " + id);
                } else {
                    s.execute("KILL CONNECTION " + id);
                }
            }
            try {
                Thread.sleep(100); // let the server finish closing it
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        return c;
    }
}
