package dev.baton.postgres;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.baton.Baton;
import dev.baton.BatonListener;
import dev.baton.ClaimQueue;
import dev.baton.ClaimedRow;
import dev.baton.DataAccessException;
import dev.baton.EpochChange;
import dev.baton.LeaseResult;
import dev.baton.testkit.compat.JobsTable;
import dev.baton.testkit.compat.Payment;
import dev.baton.testkit.compat.Sync;
import dev.baton.testservers.PostgresCluster;
import dev.baton.testservers.PostgresCluster.Replication;
import java.io.PrintWriter;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.logging.Logger;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;

/**
 * An old primary that still takes writes after its standby was promoted (a "zombie": frozen past the failover manager's
 * timeout, then resumed, with pooled sessions still connected to it). The data source here reaches one server or the
 * other as the test switches it, as a pool does whose sessions are spread over both. Once this process has seen the new
 * writer (a claim there read its timeline), nothing of its queue lands on the old one: a SENDING mark carries the
 * newest timeline seen and matches no row on the old primary, so the worker does not send (so do its completions and
 * heartbeats); a claim that reads the old timeline fails as on a read-only server, its connection aborted. The new writer still takes the marks of claims the
 * old primary made before the promotion (the standby had them).
 */
class PostgresOldWriterTest {
    private static final int ROWS = 20;
    private static final int CLAIMED = 5;

    @Test
    void afterANewWriterWasSeenNoMarkOrClaimLandsOnTheOldPrimary() throws Exception {
        try (PostgresCluster cluster = PostgresCluster.start(Replication.ASYNC)) {
            JobsTable jobs = JobsTable.create(cluster.database(), "pgz_jobs", true);
            jobs.insert(1, ROWS, Payment.PAID);
            try (HikariDataSource oldPool = pool(cluster.primaryPort());
                    HikariDataSource newPool = pool(cluster.standbyPort())) {
                Switched ds = new Switched(oldPool);
                List<EpochChange> changes = new CopyOnWriteArrayList<>();
                Baton baton = Baton.builder(ds)
                        .listener(new BatonListener() {
                            @Override
                            public void onEpochChange(EpochChange change) {
                                changes.add(change);
                            }
                        })
                        .build();
                ClaimQueue<Sync> queue = JobsTable.sendingQueue(baton, jobs.name(), Duration.ofSeconds(60));

                // on the first writer (timeline 1): a claim the standby receives before the promotion
                List<ClaimedRow<Sync>> claimed = queue.claim(CLAIMED);
                assertEquals(CLAIMED, claimed.size());
                awaitProcessing(newPool, jobs.name(), CLAIMED);
                cluster.promoteStandby(); // the old primary goes on running and taking writes
                assertFalse(inRecovery(oldPool), "the old primary still takes writes");

                // this process claims on the new writer (timeline 2): it sees the change (and holds its claims)
                ds.use(newPool);
                assertEquals(List.of(), queue.claim(CLAIMED), "the claim that saw the new writer holds");
                assertEquals(1, changes.size(), changes.toString());
                assertEquals("timeline 1", changes.get(0).from(), changes.toString());
                assertEquals("timeline 2", changes.get(0).to(), changes.toString());

                // a pooled session of the old primary: the mark of a claim made there before the promotion matches
                // no row (the old primary is on timeline 1), so the worker would not send
                ds.use(oldPool);
                ClaimedRow<Sync> first = claimed.get(0);
                assertInstanceOf(LeaseResult.LeaseLost.class, queue.markSending(first), "the old primary's mark");
                assertEquals(Sync.PROCESSING, state(oldPool, jobs.name(), first.longId()), "nothing landed there");
                // nor do a completion and a heartbeat of such a claim (its row is found on the new writer by its
                // lease's expiry)
                ClaimedRow<Sync> third = claimed.get(2);
                assertInstanceOf(LeaseResult.LeaseLost.class, queue.heartbeat(third), "the old primary's heartbeat");
                assertInstanceOf(
                        LeaseResult.LeaseLost.class,
                        queue.complete(third, Sync.COMPLETED),
                        "the old primary's completion");
                assertEquals(Sync.PROCESSING, state(oldPool, jobs.name(), third.longId()), "nothing landed there");

                // once the hold is over, a claim on the old primary reads timeline 1 and fails as on a read-only server
                Thread.sleep(EpochChange.HOLD.toMillis() + 200);
                DataAccessException refused = assertThrows(DataAccessException.class, () -> queue.claim(CLAIMED));
                assertTrue(
                        String.valueOf(refused.getCause()).contains("older than the writer with epoch timeline 2"),
                        String.valueOf(refused.getCause()));
                assertEquals(CLAIMED, count(oldPool, jobs.name(), Sync.PROCESSING), "no claim landed there");
                assertEquals(1, changes.size(), "the old timeline is no new epoch: " + changes);

                // the new writer takes the marks of the old primary's claims, which the standby had
                ds.use(newPool);
                assertInstanceOf(LeaseResult.Done.class, queue.markSending(claimed.get(1)));
                assertEquals(
                        Sync.SENDING, state(newPool, jobs.name(), claimed.get(1).longId()));
                List<ClaimedRow<Sync>> next = queue.claim(CLAIMED);
                assertEquals(CLAIMED, next.size(), "claims go on on the new writer");
                assertInstanceOf(LeaseResult.Done.class, queue.markSending(next.get(0)));
            }
        }
    }

    private static HikariDataSource pool(int port) {
        HikariConfig c = new HikariConfig();
        c.setJdbcUrl("jdbc:postgresql://127.0.0.1:" + port + "/test?connectTimeout=3");
        c.setUsername("postgres");
        c.setMaximumPoolSize(3);
        c.setMinimumIdle(0);
        c.setPoolName("pgz-" + port);
        return new HikariDataSource(c);
    }

    private static void awaitProcessing(DataSource standby, String table, int n) throws Exception {
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (count(standby, table, Sync.PROCESSING) < n) {
            assertTrue(System.nanoTime() < deadline, "the standby did not receive the claim");
            Thread.sleep(20);
        }
    }

    private static boolean inRecovery(DataSource ds) throws SQLException {
        try (Connection c = ds.getConnection();
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT pg_is_in_recovery()")) {
            rs.next();
            return rs.getBoolean(1);
        }
    }

    private static int count(DataSource ds, String table, Sync state) throws SQLException {
        try (Connection c = ds.getConnection();
                PreparedStatement ps = c.prepareStatement("SELECT count(*) FROM " + table + " WHERE sync_status = ?")) {
            ps.setInt(1, state.code());
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getInt(1);
            }
        }
    }

    private static Sync state(DataSource ds, String table, long id) throws SQLException {
        try (Connection c = ds.getConnection();
                PreparedStatement ps = c.prepareStatement("SELECT sync_status FROM " + table + " WHERE id = ?")) {
            ps.setLong(1, id);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                int code = rs.getInt(1);
                for (Sync s : Sync.values()) {
                    if (s.code() == code) {
                        return s;
                    }
                }
                throw new AssertionError("no state " + code);
            }
        }
    }

    /** A data source that hands out connections of one of two pools, as the test chooses. */
    private static final class Switched implements DataSource {
        private volatile DataSource target;

        Switched(DataSource target) {
            this.target = target;
        }

        void use(DataSource next) {
            target = next;
        }

        @Override
        public Connection getConnection() throws SQLException {
            return target.getConnection();
        }

        @Override
        public Connection getConnection(String user, String password) throws SQLException {
            return target.getConnection(user, password);
        }

        @Override
        public PrintWriter getLogWriter() {
            return null;
        }

        @Override
        public void setLogWriter(PrintWriter out) {}

        @Override
        public void setLoginTimeout(int seconds) {}

        @Override
        public int getLoginTimeout() {
            return 0;
        }

        @Override
        public Logger getParentLogger() throws SQLFeatureNotSupportedException {
            throw new SQLFeatureNotSupportedException();
        }

        @Override
        public <T> T unwrap(Class<T> iface) throws SQLException {
            throw new SQLException("not a wrapper");
        }

        @Override
        public boolean isWrapperFor(Class<?> iface) {
            return false;
        }
    }
}
