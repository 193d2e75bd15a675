package dev.baton.postgres;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.baton.Baton;
import dev.baton.ClaimQueue;
import dev.baton.Outbox;
import dev.baton.testkit.compat.JobsTable;
import dev.baton.testkit.compat.Payment;
import dev.baton.testkit.compat.Sync;
import dev.baton.testservers.TestDatabase;
import dev.baton.testservers.TestDatabases;
import dev.baton.testservers.TestServer;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import javax.sql.DataSource;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The stale-plan trap: a claim first run while its table is empty, often enough that pgjdbc prepares it on the server
 * (its fifth execution) and PostgreSQL then keeps one generic plan for it, must not keep the plan it made for the
 * empty table once a backlog arrived: with 100,000 pending rows (and no ANALYZE since: autovacuum is off for the
 * table) its next claims scan no table sequentially.
 */
class PostgresStalePlanTest {
    @ParameterizedTest(name = "{0}")
    @EnumSource(
            value = TestServer.class,
            names = {"POSTGRES_LOCAL", "POSTGRES_EMBEDDED"})
    void aClaimPreparedOnAnEmptyTableStaysAnIndexScanWhenTheBacklogArrives(TestServer server) throws Exception {
        TestDatabase db = server.get();
        JobsTable jobs = JobsTable.create(db, "stale", true);
        try (Connection physical = db.connect()) {
            // vacuumed while empty, as autovacuum leaves a drained queue: the planner then believes it
            db.execute(
                    "ALTER TABLE " + jobs.name() + " SET (autovacuum_enabled = false)",
                    "VACUUM ANALYZE " + jobs.name());
            // one connection, so that every claim runs on the session that prepared it
            ClaimQueue<Sync> q = jobs.queue(Baton.using(oneConnection(physical)), Duration.ofMinutes(5));
            for (int i = 0; i < 12; i++) {
                assertTrue(q.claim(10).isEmpty());
            }
            db.execute("INSERT INTO " + jobs.name() + " (id, payment_status, sync_status, attempts, payload)"
                    + " SELECT g, " + Payment.PAID.code() + ", 0, 0, 'p' || g FROM generate_series(1, 100000) g");
            long before = seqScans(physical, jobs.name());
            for (int i = 0; i < 3; i++) {
                assertEquals(10, q.claim(10).size());
            }
            long after = seqScans(physical, jobs.name());
            assertEquals(
                    0,
                    after - before,
                    "sequential scans of the table by 3 claims over 100,000 pending rows; prepared statements: "
                            + prepared(physical));
        } finally {
            jobs.drop();
        }
    }

    /** The same for an outbox ordered per key, whose claim also asks whether an earlier message of its key waits. */
    @ParameterizedTest(name = "{0}")
    @EnumSource(
            value = TestServer.class,
            names = {"POSTGRES_LOCAL", "POSTGRES_EMBEDDED"})
    void anOutboxClaimPreparedOnAnEmptyTableStaysAnIndexScanWhenTheBacklogArrives(TestServer server) throws Exception {
        TestDatabase db = server.get();
        String table = TestDatabases.uniqueName("staleobox");
        try (Connection physical = db.connect()) {
            Baton baton = Baton.using(oneConnection(physical));
            baton.ownTables().createOutboxTable(table);
            db.execute("ALTER TABLE " + table + " SET (autovacuum_enabled = false)", "VACUUM ANALYZE " + table);
            ClaimQueue<Outbox.Status> q = baton.outbox(table).queue();
            for (int i = 0; i < 12; i++) {
                assertTrue(q.claim(10).isEmpty());
            }
            db.execute("INSERT INTO " + table + " (topic, msg_key, payload, status, attempts, created_at)"
                    + " SELECT 't', 'k' || (g % 64), '\\x00'::bytea, " + Outbox.Status.PENDING.code()
                    + ", 0, now() FROM generate_series(1, 100000) g");
            long before = seqScans(physical, table);
            for (int i = 0; i < 3; i++) {
                assertEquals(10, q.claim(10).size());
            }
            long after = seqScans(physical, table);
            assertEquals(
                    0,
                    after - before,
                    "sequential scans of the outbox by 3 claims over 100,000 pending messages; prepared statements: "
                            + prepared(physical));
        } finally {
            db.execute("DROP TABLE IF EXISTS " + table);
        }
    }

    /** The table's sequential scans so far, this session's flushed first. */
    private static long seqScans(Connection c, String table) throws SQLException {
        try (Statement s = c.createStatement()) {
            s.execute("SELECT pg_stat_force_next_flush()");
            try (ResultSet rs =
                    s.executeQuery("SELECT seq_scan FROM pg_stat_user_tables WHERE relname = '" + table + "'")) {
                rs.next();
                return rs.getLong(1);
            }
        }
    }

    private static String prepared(Connection c) throws SQLException {
        StringBuilder out = new StringBuilder();
        try (Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT name, generic_plans, custom_plans, statement"
                        + " FROM pg_prepared_statements WHERE statement LIKE 'WITH baton_claim%'")) {
            while (rs.next()) {
                out.append("\n  ")
                        .append(rs.getString(1))
                        .append(": generic ")
                        .append(rs.getLong(2))
                        .append(", custom ")
                        .append(rs.getLong(3));
            }
        }
        return out.length() == 0 ? "none" : out.toString();
    }

    /** A data source that always hands out {@code physical}; closing what it hands out leaves it open. */
    private static DataSource oneConnection(Connection physical) {
        Connection kept = (Connection) Proxy.newProxyInstance(
                Connection.class.getClassLoader(), new Class<?>[] {Connection.class}, (p, m, args) -> {
                    if (m.getName().equals("close")) {
                        return null;
                    }
                    try {
                        return m.invoke(physical, args);
                    } catch (InvocationTargetException e) {
                        throw e.getCause();
                    }
                });
        return (DataSource) Proxy.newProxyInstance(
                DataSource.class.getClassLoader(), new Class<?>[] {DataSource.class}, (p, m, args) -> {
                    if (m.getName().equals("getConnection")) {
                        return kept;
                    }
                    throw new UnsupportedOperationException(m.getName());
                });
    }
}
