package dev.baton.postgres;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.zaxxer.hikari.HikariDataSource;
import dev.baton.RetryPolicy;
import dev.baton.internal.Engine;
import dev.baton.testservers.PgBouncerServer;
import dev.baton.testservers.TestDatabase;
import dev.baton.testservers.TestServer;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Behind PgBouncer in transaction mode a client's session is no server session: what one client sets for "its"
 * session outside a transaction lands on whichever server connection ran that statement, and stays there for the
 * next client. Baton's transactions must run at READ COMMITTED whatever the server connection under them was left
 * at, without remembering anything per client connection. A PgBouncer of its own, so that the server connections it
 * leaves at another level never reach the shared suites.
 */
class PostgresPgBouncerIsolationTest {
    private PgBouncerServer bouncer;
    private HikariDataSource pool;
    private String url;
    private String user;

    @BeforeEach
    void start() {
        TestDatabase behind = TestServer.POSTGRES_PGBOUNCER.get(); // the skip-or-fail rules of the shared instance
        TestDatabase local = TestServer.POSTGRES_LOCAL.get();
        bouncer = PgBouncerServer.start(PgBouncerServer.binary().orElseThrow(), "127.0.0.1", 5432, local.user());
        url = bouncer.jdbcUrl("test");
        user = behind.user();
        pool = new HikariDataSource();
        pool.setJdbcUrl(url);
        pool.setUsername(user);
        pool.setMaximumPoolSize(1); // one client connection: the one Baton may remember
    }

    @AfterEach
    void stop() {
        if (pool != null) {
            pool.close();
        }
        if (bouncer != null) {
            bouncer.close();
        }
    }

    @Test
    void transactionsRunAtReadCommittedWhateverTheServerConnectionWasLeftAt() throws SQLException {
        Engine engine =
                new Engine(Engine.Settings.of(pool, new PostgresDialect()).retrying(RetryPolicy.none(), List.of()));
        assertEquals("read committed", engine.tx().transaction("probe", PostgresPgBouncerIsolationTest::level));

        leaveEveryServerConnectionAt("REPEATABLE READ");

        for (int i = 0; i < 3; i++) {
            assertEquals(
                    "read committed",
                    engine.tx().transaction("probe", PostgresPgBouncerIsolationTest::level),
                    "the level of Baton's transaction on a server connection left at REPEATABLE READ");
        }
    }

    private static String level(Connection c) throws SQLException {
        try (Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT current_setting('transaction_isolation')")) {
            rs.next();
            return rs.getString(1);
        }
    }

    /**
     * Opens as many clients as the pool has server connections, each holding one in a transaction that sets the
     * session's default level, then commits them all: every server connection keeps that default.
     */
    private void leaveEveryServerConnectionAt(String level) throws SQLException {
        List<Connection> clients = new ArrayList<>();
        try {
            for (int i = 0; i < PgBouncerServer.POOL_SIZE; i++) {
                Connection c = java.sql.DriverManager.getConnection(url, user, null);
                clients.add(c);
                c.setAutoCommit(false);
                try (Statement s = c.createStatement()) {
                    s.execute("SET SESSION CHARACTERISTICS AS TRANSACTION ISOLATION LEVEL " + level);
                }
            }
            for (Connection c : clients) {
                c.commit();
            }
        } finally {
            for (Connection c : clients) {
                c.close();
            }
        }
    }
}
