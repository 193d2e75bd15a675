package dev.baton.testkit.compat;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.baton.Baton;
import dev.baton.BatonInterceptor;
import dev.baton.ClaimQueue;
import dev.baton.ClaimQueueBuilder;
import dev.baton.ClaimedRow;
import dev.baton.ConfigurationException;
import dev.baton.InvalidIdentifierException;
import dev.baton.Outcome;
import dev.baton.RateLimit;
import dev.baton.SchemaMismatchException;
import dev.baton.Worker;
import dev.baton.testkit.DatabaseSuite;
import dev.baton.testkit.faults.Fault;
import dev.baton.testkit.faults.FaultPoint;
import dev.baton.testkit.faults.FaultyDataSource;
import dev.baton.testkit.faults.StepKind;
import dev.baton.testservers.TestDatabase;
import dev.baton.testservers.TestDatabases;
import java.io.PrintWriter;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.logging.Logger;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A rate limit per queue: at most {@code rate} rows a second claimed across processes, held
 * by a token bucket in the database. Two Baton instances on separate pools stand in for two processes; the window
 * test fails without the limit (every row is claimed in the first second), and the lost-reply tests count the tokens
 * a retried claim takes.
 */
public abstract class AbstractRateLimitCompatibilityTest extends DatabaseSuite {
    private static final Duration LEASE = Duration.ofSeconds(60);
    private static final int RATE = 50;
    private static final int BURST = 10;

    private TestDatabase db;
    private Baton baton;
    private String table;
    private String limits;

    @Override
    protected void setUp() {
        db = database();
        baton = Baton.using(db.dataSource());
    }

    @BeforeEach
    void freshTables() {
        table = TestDatabases.uniqueName("rl_queue");
        limits = TestDatabases.uniqueName("rl_limits");
        String ts = db.kind().timestampType();
        db.execute("CREATE TABLE " + table + " (id BIGINT NOT NULL PRIMARY KEY, sync_status INT NOT NULL, lease_until "
                + ts + ", claim_token BIGINT NULL, attempts INT DEFAULT 0 NOT NULL, next_attempt_at " + ts + ","
                + " last_error VARCHAR(1000) NULL, claimed_at " + ts + ")");
        db.execute("CREATE INDEX ix_" + table + "_claim ON " + table + " (sync_status, id)");
        assertTrue(baton.ownTables().createRateLimitsTable(limits), "created");
        assertFalse(baton.ownTables().createRateLimitsTable(limits), "there already");
    }

    @AfterEach
    void dropTables() {
        db.dropTableIfExists(table);
        db.dropTableIfExists(limits);
    }

    private void insertRows(int n) {
        try (Connection c = db.connect();
                PreparedStatement ps =
                        c.prepareStatement("INSERT INTO " + table + " (id, sync_status, attempts) VALUES (?, 0, 0)")) {
            for (long i = 1; i <= n; i++) {
                ps.setLong(1, i);
                ps.addBatch();
            }
            ps.executeBatch();
        } catch (SQLException e) {
            throw new AssertionError(e);
        }
    }

    private ClaimQueueBuilder<Sync> queue(Baton on) {
        return on.<Sync>queue("rl-" + table)
                .table(table)
                .claim("sync_status", Sync.MACHINE, Sync.PENDING, Sync.PROCESSING)
                .deadState(Sync.FAILED)
                .lease(LEASE);
    }

    private ClaimQueue<Sync> limited(Baton on, int rate, int burst) {
        return queue(on)
                .rateLimit(RateLimit.perSecond(rate, burst).table(limits))
                .build();
    }

    /**
     * The claim time of every row a worker completed, by the database clock (the lease its claim stamped, which the
     * handler copied, minus the lease), in milliseconds.
     */
    private List<Long> claimTimes() {
        List<Long> out = new ArrayList<>();
        try (Connection c = db.connect();
                PreparedStatement ps =
                        c.prepareStatement("SELECT claimed_at FROM " + table + " WHERE sync_status = 2");
                ResultSet rs = ps.executeQuery()) {
            while (rs.next()) {
                Timestamp t = rs.getTimestamp(1);
                out.add(t.getTime() - LEASE.toMillis());
            }
        } catch (SQLException e) {
            throw new AssertionError(e);
        }
        Collections.sort(out);
        return out;
    }

    /** The most claim times within any window of {@code millis}. */
    private static int mostInWindow(List<Long> times, long millis) {
        int most = 0;
        int from = 0;
        for (int to = 0; to < times.size(); to++) {
            while (times.get(to) - times.get(from) >= millis) {
                from++;
            }
            most = Math.max(most, to - from + 1);
        }
        return most;
    }

    /** What a run of {@link #workersOnTwoInstances} saw. */
    private record Run(int claimed, int mostInOneSecond, int claims, long millis) {}

    /**
     * Two instances (separate pools), two pollers each, batches of 5 polled every 10 ms, for about three seconds or
     * until all 400 rows are claimed; each handler completes its row with the lease its claim stamped.
     */
    private Run workersOnTwoInstances(boolean withLimit) throws Exception {
        insertRows(400);
        AtomicInteger claims = new AtomicInteger();
        AtomicInteger claimed = new AtomicInteger();
        BatonInterceptor counting = new BatonInterceptor() {
            @Override
            public <S extends Enum<S>> List<ClaimedRow<S>> aroundClaim(ClaimCall<S> call) {
                claims.incrementAndGet();
                return call.proceed();
            }
        };
        List<Worker> workers = new ArrayList<>();
        List<DataSource> pools = new ArrayList<>();
        long start = System.nanoTime();
        try {
            for (int process = 0; process < 2; process++) {
                DataSource pool = db.newDataSource(4);
                pools.add(pool);
                Baton instance = Baton.builder(pool)
                        .dialect(baton.dialect())
                        .interceptor(counting)
                        .build();
                ClaimQueueBuilder<Sync> b = queue(instance).select("lease_until");
                ClaimQueue<Sync> q = withLimit
                        ? b.rateLimit(RateLimit.perSecond(RATE, BURST).table(limits))
                                .build()
                        : b.build();
                workers.add(instance.worker(q)
                        .batchSize(5)
                        .concurrency(2)
                        .pollInterval(Duration.ofMillis(10), Duration.ofMillis(10))
                        .handle(row -> {
                            claimed.incrementAndGet();
                            return Outcome.<Sync>complete(Sync.COMPLETED).set("claimed_at", row.get("lease_until"));
                        })
                        .start());
            }
            long deadline = start + Duration.ofMillis(3_000).toNanos();
            while (System.nanoTime() < deadline && claimed.get() < 400) {
                Thread.sleep(20);
            }
        } finally {
            for (Worker w : workers) {
                w.close();
            }
            for (DataSource pool : pools) {
                ((AutoCloseable) pool).close();
            }
        }
        long millis = Duration.ofNanos(System.nanoTime() - start).toMillis();
        List<Long> times = claimTimes();
        return new Run(times.size(), mostInWindow(times, 1_000), claims.get(), millis);
    }

    /**
     * 50 rows/s, bursts of 10, four pollers on two instances for three seconds: no second of claim times (by the
     * database clock) holds more than rate + burst rows; the total is near rate × time (the bucket does not starve
     * them); and the pollers wait for tokens instead of claiming every 10 ms (a poller that claims again at once
     * makes about 100 claims a second). The bound holds for the clock of the bucket's read; a claim's lease is stamped
     * by its claim statement, a round trip later, so a claimer stalled between the two (40 ms is two tokens at 50/s)
     * can move up to two rows into a window: the slack of 2. Without the limit every row is claimed in one second.
     */
    @Test
    void theRateHoldsAcrossTwoInstancesAndIsNotStarved() throws Exception {
        Run run = workersOnTwoInstances(true);
        String seen = run.toString();
        assertTrue(run.mostInOneSecond() <= RATE + BURST + 2, "rows claimed in one second: " + seen);
        double expected = BURST + RATE * run.millis() / 1000.0;
        assertTrue(run.claimed() >= 0.8 * expected && run.claimed() <= expected + 1, "claimed in all: " + seen);
        assertTrue(run.claims() <= 4 * run.millis() / 1000.0 * 25, "claims made (polls): " + seen);
    }

    /** The same workers without the limit: the test above can fail. */
    @Test
    void withoutTheLimitTheSameWorkersClaimEverythingAtOnce() throws Exception {
        Run run = workersOnTwoInstances(false);
        assertTrue(run.mostInOneSecond() > RATE + BURST, "rows claimed in one second: " + run);
    }

    /**
     * A claim whose transaction rolls back (here the caller's, which it joined) takes no tokens: at 1 row/s, a claim
     * right after still finds the whole burst.
     */
    @Test
    void aClaimThatRollsBackTakesNoTokens() throws Exception {
        insertRows(20);
        ClaimQueue<Sync> q = limited(baton, 1, 5);
        try (Connection c = db.connect()) {
            c.setAutoCommit(false);
            assertEquals(5, q.claim(c, 10).size(), "the first claim takes the burst");
            c.rollback();
        }
        assertEquals(5, q.claim(10).size(), "the rolled-back claim took no tokens");
        assertTrue(q.claim(10).size() <= 2, "then the bucket is empty (a token a second)");
    }

    /**
     * A claim whose COMMIT reply is lost: the retry reads the committed rows back and takes no tokens again; a claim
     * whose bucket update loses its reply (the server rolls the transaction back): the retry claims again, and the
     * tokens are taken once. Either way, at 1 row/s and bursts of 10, a claim of 5 leaves 5.
     */
    @Test
    void aLostReplyTakesTheTokensOnce() throws Exception {
        insertRows(40);
        for (Fault fault : List.of(
                Fault.on(FaultPoint.LOST_REPLY, StepKind.COMMIT, 1),
                Fault.whenSql(FaultPoint.LOST_REPLY, sql -> sql.startsWith("UPDATE") && sql.contains(limits)))) {
            db.execute("DELETE FROM " + limits);
            FaultyDataSource faults = new FaultyDataSource(db);
            Baton faulty = Baton.builder(faults).dialect(baton.dialect()).build();
            ClaimQueue<Sync> q = limited(faulty, 1, 10);
            faults.arm(fault);
            List<ClaimedRow<Sync>> rows = q.claim(5);
            faults.disarm();
            assertTrue(faults.fired().isPresent(), fault + " fired: " + faults.describe());
            assertEquals(5, rows.size(), fault + ": " + faults.describe());
            int next = limited(baton, 1, 10).claim(10).size();
            // 5 left, and a token a second since: 10 (none taken) or 0 (taken twice) would be wrong
            assertTrue(next >= 5 && next <= 7, fault + ": the next claim found " + next + " tokens, not 5");
        }
    }

    /** Bad limits are refused by type before any SQL (the data source here has no connection to give). */
    @Test
    void badLimitsAreRefusedBeforeAnySql() {
        Baton offline =
                Baton.builder(new NoConnections()).dialect(baton.dialect()).build();
        assertThrows(ConfigurationException.class, () -> RateLimit.perSecond(0, 10));
        assertThrows(ConfigurationException.class, () -> RateLimit.perSecond(RateLimit.MAX_RATE + 1, 10));
        assertThrows(ConfigurationException.class, () -> RateLimit.perSecond(10, 0));
        assertThrows(ConfigurationException.class, () -> queue(offline).rateLimit(10, -1));
        assertThrows(InvalidIdentifierException.class, () -> RateLimit.perSecond(10, 10)
                .table("limits; DROP"));
        assertThrows(NullPointerException.class, () -> queue(offline).rateLimit(null));
        List<String> sql = limited(offline, 10, 10).claimSql(5); // builds without a connection
        assertTrue(sql.size() >= 4 && sql.get(0).contains(limits), sql.toString());
    }

    /** Verify() refuses a queue whose rate-limit table is missing, and hands over its DDL. */
    @Test
    void verifyRefusesAMissingRateLimitTableWithItsDdl() {
        ClaimQueue<Sync> q = limited(baton, 10, 10);
        q.verify();
        db.dropTableIfExists(limits);
        SchemaMismatchException refused = assertThrows(SchemaMismatchException.class, q::verify);
        assertTrue(refused.getMessage().contains(limits), refused.getMessage());
        db.execute(refused.ddl().toArray(new String[0]));
        q.verify();
        insertRows(3);
        assertEquals(3, q.claim(5).size());
    }

    /** A data source that refuses every connection: what runs no SQL passes. */
    static final class NoConnections implements DataSource {
        @Override
        public Connection getConnection() throws SQLException {
            throw new SQLException("no connections in this test");
        }

        @Override
        public Connection getConnection(String user, String password) throws SQLException {
            return getConnection();
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
        public Logger getParentLogger() {
            return Logger.getGlobal();
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
