package dev.baton.postgres;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.zaxxer.hikari.HikariDataSource;
import dev.baton.Baton;
import dev.baton.ClaimQueue;
import dev.baton.ClaimedRow;
import dev.baton.Decision;
import dev.baton.LeaseResult;
import dev.baton.Outcome;
import dev.baton.SchemaMismatchException;
import dev.baton.testkit.compat.JobsTable;
import dev.baton.testkit.compat.Payment;
import dev.baton.testkit.compat.Sync;
import dev.baton.testservers.TestDatabase;
import dev.baton.testservers.TestServer;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A pool whose connections all reach a server that has become read-only (a primary demoted or fenced by a failover
 * answers every write with 25006, "cannot execute UPDATE in a read-only transaction"): Baton evicts them and retries on
 * a new connection, and the write lands. The fence is {@code SET SESSION default_transaction_read_only = on} on every
 * pooled session, what an old primary's sessions see after {@code ALTER SYSTEM SET default_transaction_read_only} and
 * a reload, without touching other sessions of the shared server; a new session of the pool is writable, as one to
 * the new primary would be.
 */
class PostgresReadOnlyServerTest {
    private static final int POOL = 3;

    @ParameterizedTest(name = "{0}")
    @EnumSource(
            value = TestServer.class,
            names = {"POSTGRES_LOCAL"})
    void completionsRefusedByAReadOnlyServerAreRetriedOnANewConnectionNotDeadLettered(TestServer server)
            throws Exception {
        TestDatabase db = server.get();
        JobsTable jobs = JobsTable.create(db, "failover_ro", true);
        try (HikariDataSource pool = db.newDataSource(POOL)) {
            jobs.insert(1, 10, Payment.PAID);
            ClaimQueue<Sync> q = jobs.queue(Baton.using(pool), Duration.ofMinutes(5));
            List<ClaimedRow<Sync>> rows = q.claim(10);
            assertEquals(10, rows.size());
            List<Integer> fenced = fenceEveryPooledSession(pool);

            List<Decision<Sync>> decisions = new ArrayList<>();
            for (ClaimedRow<Sync> row : rows) {
                decisions.add(new Decision<>(row, Outcome.complete(Sync.COMPLETED)));
            }
            List<LeaseResult<Sync>> results = q.applyAll(decisions);

            assertTrue(results.stream().allMatch(LeaseResult::done), "results: " + results);
            assertEquals(
                    10, jobs.countBySync().getOrDefault(Sync.COMPLETED, 0), "by sync state: " + jobs.countBySync());
            assertEquals(0, q.deadLetters().count(1000), "a refusal by a read-only server is not the row's fault");
            assertSessionsGone(db, fenced);
        } finally {
            jobs.drop();
        }
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(
            value = TestServer.class,
            names = {"POSTGRES_LOCAL"})
    void aClaimRefusedByAReadOnlyServerIsRetriedOnANewConnection(TestServer server) throws Exception {
        TestDatabase db = server.get();
        JobsTable jobs = JobsTable.create(db, "failover_ro", true);
        try (HikariDataSource pool = db.newDataSource(POOL)) {
            jobs.insert(1, 10, Payment.PAID);
            ClaimQueue<Sync> q = jobs.queue(Baton.using(pool), Duration.ofMinutes(5));
            assertEquals(1, q.claim(1).size());
            List<Integer> fenced = fenceEveryPooledSession(pool);

            assertEquals(5, q.claim(5).size());

            assertSessionsGone(db, fenced);
        } finally {
            jobs.drop();
        }
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(
            value = TestServer.class,
            names = {"POSTGRES_LOCAL"})
    void verifyRefusesADataSourceThatReachesAServerRefusingWrites(TestServer server) throws Exception {
        TestDatabase db = server.get();
        JobsTable jobs = JobsTable.create(db, "failover_ro", true);
        try (HikariDataSource pool = db.newDataSource(POOL)) {
            ClaimQueue<Sync> q = jobs.queue(Baton.using(pool), Duration.ofMinutes(5));
            q.verify(); // the writer passes
            fenceEveryPooledSession(pool);

            SchemaMismatchException e = assertThrows(SchemaMismatchException.class, q::verify);
            assertTrue(e.getMessage().contains("refuses writes"), e.getMessage());
        } finally {
            jobs.drop();
        }
    }

    /** Makes every session of the pool read-only and returns their backend pids. */
    private static List<Integer> fenceEveryPooledSession(HikariDataSource pool) throws SQLException {
        List<Connection> held = new ArrayList<>();
        List<Integer> pids = new ArrayList<>();
        try {
            for (int i = 0; i < POOL; i++) {
                Connection c = pool.getConnection();
                held.add(c);
                try (Statement s = c.createStatement()) {
                    s.execute("SET SESSION default_transaction_read_only = on");
                    try (ResultSet rs = s.executeQuery("SELECT pg_backend_pid()")) {
                        rs.next();
                        pids.add(rs.getInt(1));
                    }
                }
            }
        } finally {
            for (Connection c : held) {
                c.close();
            }
        }
        return pids;
    }

    /** Every fenced session ended: the pool dropped them rather than hand them out again. */
    private static void assertSessionsGone(TestDatabase db, List<Integer> pids) throws Exception {
        List<Integer> alive = List.of();
        for (int i = 0; i < 50; i++) {
            alive = alive(db, pids);
            if (alive.isEmpty()) {
                return;
            }
            Thread.sleep(100);
        }
        throw new AssertionError("read-only sessions still open (pids " + alive + " of " + pids + ")");
    }

    private static List<Integer> alive(TestDatabase db, List<Integer> pids) throws SQLException {
        List<Integer> alive = new ArrayList<>();
        try (Connection c = db.connect();
                PreparedStatement ps = c.prepareStatement("SELECT 1 FROM pg_stat_activity WHERE pid = ?")) {
            for (int pid : pids) {
                ps.setInt(1, pid);
                try (ResultSet rs = ps.executeQuery()) {
                    if (rs.next()) {
                        alive.add(pid);
                    }
                }
            }
        }
        return alive;
    }
}
