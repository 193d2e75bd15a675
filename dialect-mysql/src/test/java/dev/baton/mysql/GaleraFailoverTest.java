package dev.baton.mysql;

import static dev.baton.testkit.failover.Timing.await;
import static dev.baton.testkit.failover.Timing.seconds;
import static dev.baton.testkit.failover.Timing.since;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.zaxxer.hikari.HikariDataSource;
import dev.baton.Baton;
import dev.baton.BatonListener;
import dev.baton.ClaimQueue;
import dev.baton.Condition;
import dev.baton.DataAccessException;
import dev.baton.EpochChange;
import dev.baton.Outcome;
import dev.baton.RetryPolicy;
import dev.baton.SendDurability;
import dev.baton.StateTable;
import dev.baton.TransitionResult;
import dev.baton.TransitionsInDoubt;
import dev.baton.Worker;
import dev.baton.testkit.compat.JobsTable;
import dev.baton.testkit.compat.Payment;
import dev.baton.testkit.compat.Sync;
import dev.baton.testservers.GaleraCluster;
import dev.baton.testservers.TestDatabase;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * The failover suite on a three-node MariaDB Galera cluster of its own ({@link GaleraCluster}): the node the clients write to is
 * killed with {@code kill -9} in the middle of a run, and started again while the load goes on; it rejoins by state
 * transfer (SST, then IST).
 *
 * <p>The clients reach the cluster through the {@code jdbc:mariadb:sequential:} URL of {@link
 * GaleraCluster#database()}: every connection on node 1 while it answers, else node 2 (one writer at a time, as behind
 * a Galera-aware proxy). Two loads share one pool:
 *
 * <ul>
 *   <li>one {@link Worker} (8 handler threads, batches of 50) with the non-idempotent sink protocol (a SENDING mark
 *       committed before each send, a reconciler that asks a recording sink), whose completion writes the claim's
 *       token into the row ({@code third_party_guid = 'g' + token});
 *   <li>callback threads applying the guarded transition PENDING → PAID to a payments table, every payment twice at
 *       nearly the same time (a duplicate callback).
 * </ul>
 *
 * <p>Invariants: no row sent twice, every row sent and completed; every callback Baton reported in the target state
 * ({@link TransitionResult#inTarget()}) is PAID afterwards, and no payment was reported {@code Applied} twice; no stale
 * write (a completion under a token that was not the row's last claim's: the row's token in {@code third_party_guid}
 * must be the one of its highest attempt handed to the handler); the three nodes hold the same rows at the end. The
 * cluster survives the kill, so Baton's Galera epoch ({@code wsrep_cluster_state_uuid}) is the same before and after:
 * no epoch change (nothing moved to reconciliation by one), and the failover audit, on for the callbacks, reports
 * nothing.
 *
 * <p>Skipped only when the machine has no {@code mariadbd} or {@code galera-4} (see {@link GaleraCluster#start}).
 */
class GaleraFailoverTest {
    private static final int ROWS = 4_000;
    private static final int KILL_AFTER_SENDS = 800;
    private static final int PAYMENTS = 60_000;
    private static final int CALLBACK_THREADS = 4;
    private static final int KILLED = 1;
    static final String DRIVER_OPTIONS = "&deniedListTimeout=1000&galeraAllowedState=4&retriesAllDown=8";

    @Test
    void killingTheWriterNodeUnderLoadSendsEveryRowOnceAndLosesNoAcknowledgedTransition() throws Exception {
        try (GaleraCluster cluster = GaleraCluster.start()) {
            Figures f = run(cluster);
            assertEquals(0, f.sentTwice(), f.toString());
            assertEquals(ROWS, f.rowsSent(), f.toString());
            assertEquals(0, f.lostAcknowledgedTransitions(), f.toString());
            assertEquals(0, f.appliedTwice(), f.toString());
            assertEquals(0, f.staleWrites(), f.toString());
            assertTrue(f.nodesAgree(), f.toString());
            // the load went on through the kill and the return
            assertTrue(f.callbacksAfterReturn() > 0, f.toString());
            // the cluster survived the kill, so its state UUID (Baton's Galera epoch) stayed: no epoch change, no
            // mark moved to reconciliation by one, and the failover audit reported nothing
            assertEquals(f.epochBefore(), f.epochAfter(), f.toString());
            assertEquals(0, f.epochChanges(), f.toString());
            assertEquals(0, f.transitionsInDoubtReports(), f.toString());
        }
    }

    /** What one run measured. */
    record Figures(
            double sendsPerSecondBefore,
            double callbacksPerSecondBefore,
            int rowsSent,
            int sends,
            int sentTwice,
            int sentBeforeKill,
            int sentAfterReturn,
            int reconciledAsSent,
            int callbacks,
            int callbacksInTarget,
            int callbacksFailed,
            int callbacksAfterReturn,
            int lostAcknowledgedTransitions,
            int appliedTwice,
            int staleWrites,
            int fencedWritesRefused,
            int transientRetries,
            double killToFirstClaimSeconds,
            double killToFirstSendSeconds,
            double killToFirstAppliedCallbackSeconds,
            double killToNodeSyncedSeconds,
            boolean nodesAgree,
            String epochBefore,
            String epochAfter,
            int epochChanges,
            int transitionsInDoubtReports) {}

    private static Figures run(GaleraCluster cluster) throws Exception {
        TestDatabase db = cluster.database();
        JobsTable jobs = JobsTable.create(db, "galera_fo", true);
        jobs.insert(1, ROWS, Payment.PAID);
        JobsTable payments = JobsTable.create(db, "galera_cb", false);
        payments.insert(1, PAYMENTS, Payment.PENDING);

        Map<Long, AtomicInteger> sends = new ConcurrentHashMap<>();
        Map<Long, long[]> lastClaim = new ConcurrentHashMap<>(); // id -> {attempt, token} of the highest attempt
        AtomicInteger sent = new AtomicInteger();
        AtomicLong killed = new AtomicLong();
        AtomicLong returned = new AtomicLong();
        AtomicLong firstClaimAfterKill = new AtomicLong();
        AtomicLong firstSendAfterKill = new AtomicLong();
        AtomicLong firstCallbackAfterKill = new AtomicLong();
        AtomicInteger sentAfterReturn = new AtomicInteger();
        AtomicInteger transientRetries = new AtomicInteger();
        AtomicInteger fencedRefused = new AtomicInteger();
        Set<Long> reconciledAsSent = ConcurrentHashMap.newKeySet();
        AtomicInteger epochChanges = new AtomicInteger();
        AtomicInteger transitionsInDoubt = new AtomicInteger();

        Set<Long> acknowledged = ConcurrentHashMap.newKeySet(); // callbacks Baton reported in the target state
        Map<Long, AtomicInteger> applied = new ConcurrentHashMap<>();
        AtomicInteger callbacks = new AtomicInteger();
        AtomicInteger callbacksFailed = new AtomicInteger();
        AtomicInteger callbacksAfterReturn = new AtomicInteger();
        AtomicLong nextCallback = new AtomicLong();
        AtomicBoolean stopCallbacks = new AtomicBoolean();

        try (HikariDataSource pool = failoverPool(db)) {
            assertEquals("node" + KILLED, nodeName(pool), "the sequential URL writes to node " + KILLED);
            String epochBefore = epoch(pool);
            Baton baton = Baton.builder(pool)
                    .failoverAudit(Duration.ofSeconds(60))
                    .listener(new BatonListener() {
                        @Override
                        public void onEpochChange(EpochChange change) {
                            epochChanges.incrementAndGet();
                        }

                        @Override
                        public void onTransitionsInDoubt(TransitionsInDoubt report) {
                            transitionsInDoubt.incrementAndGet();
                        }

                        @Override
                        public void onClaim(String queue, int count) {
                            if (killed.get() != 0 && count > 0) {
                                firstClaimAfterKill.compareAndSet(0, System.nanoTime());
                            }
                        }

                        @Override
                        public void onTransientRetry(String operation, int attempt, SQLException cause) {
                            transientRetries.incrementAndGet();
                        }

                        @Override
                        public void onFencedWriteRefused(String queue, Object id, BatonListener.FencedWrite write) {
                            fencedRefused.incrementAndGet();
                        }
                    })
                    .build();
            ClaimQueue<Sync> queue = sendingQueue(baton, jobs.name());
            StateTable<Payment> paymentTable = baton.table(payments.name()).state("payment_status", Payment.MACHINE);
            long started = System.nanoTime();
            Worker worker = baton.worker(queue)
                    .batchSize(50)
                    .concurrency(8)
                    .pollInterval(Duration.ofMillis(10), Duration.ofMillis(100))
                    .sweepInterval(Duration.ofMillis(500))
                    .handle(row -> {
                        long id = row.longId();
                        lastClaim.merge(id, new long[] {row.sendToken(), row.token()}, (a, b) -> b[0] >= a[0] ? b : a);
                        sends.computeIfAbsent(id, k -> new AtomicInteger()).incrementAndGet();
                        sent.incrementAndGet();
                        if (killed.get() != 0) {
                            firstSendAfterKill.compareAndSet(0, System.nanoTime());
                        }
                        if (returned.get() != 0) {
                            sentAfterReturn.incrementAndGet();
                        }
                        return Outcome.complete(Sync.COMPLETED).set("third_party_guid", "g" + row.token());
                    })
                    .reconcile(id -> {
                        long n = ((Number) id).longValue();
                        if (sends.containsKey(n)) {
                            reconciledAsSent.add(n);
                            return Outcome.complete(Sync.COMPLETED);
                        }
                        return Outcome.release();
                    })
                    .start();
            ExecutorService callers = Executors.newFixedThreadPool(CALLBACK_THREADS);
            List<Future<?>> callerFutures = new ArrayList<>();
            for (int t = 0; t < CALLBACK_THREADS; t++) {
                callerFutures.add(callers.submit(() -> {
                    while (!stopCallbacks.get()) {
                        long id = nextCallback.getAndIncrement() / 2 + 1; // each payment twice, back to back
                        if (id > PAYMENTS) {
                            return null;
                        }
                        TransitionResult<Payment> r;
                        try {
                            r = paymentTable
                                    .transition(id, Payment.PENDING, Payment.PAID)
                                    .apply();
                        } catch (DataAccessException e) { // the retries ran out: not acknowledged
                            callbacksFailed.incrementAndGet();
                            continue;
                        }
                        callbacks.incrementAndGet();
                        if (r.inTarget()) {
                            acknowledged.add(id);
                        }
                        if (r.applied()) {
                            applied.computeIfAbsent(id, k -> new AtomicInteger())
                                    .incrementAndGet();
                            if (killed.get() != 0) {
                                firstCallbackAfterKill.compareAndSet(0, System.nanoTime());
                            }
                        }
                        if (returned.get() != 0) {
                            callbacksAfterReturn.incrementAndGet();
                        }
                    }
                    return null;
                }));
            }
            try {
                await("the first " + KILL_AFTER_SENDS + " sends", () -> sent.get() >= KILL_AFTER_SENDS, 60);
                double beforeSeconds = seconds(System.nanoTime() - started);
                double sendsPerSecond = Math.round(sent.get() / beforeSeconds);
                double callbacksPerSecond = Math.round(callbacks.get() / beforeSeconds);
                int sentBeforeKill = sent.get();
                long kill = System.nanoTime();
                cluster.killNode(KILLED);
                killed.set(System.nanoTime());
                Thread watch = watchNode(cluster, 2, kill, stopCallbacks);
                // the node comes back once the others go on without it, and rejoins under load (SST, then IST)
                await(
                        "the first claim after the kill",
                        () -> firstClaimAfterKill.get() != 0,
                        60,
                        () -> status(cluster) + cluster.logTails());
                cluster.restartNode(KILLED);
                long synced = System.nanoTime();
                returned.set(synced);
                await(
                        "every row completed",
                        () -> jobs.countBySync().getOrDefault(Sync.COMPLETED, 0) == ROWS,
                        60,
                        () -> "by state " + jobs.countBySync() + ", sends " + sent.get());
                await("callbacks after the node's return", () -> callbacksAfterReturn.get() >= 200, 30);
                stopCallbacks.set(true);
                for (Future<?> f : callerFutures) {
                    f.get(60, TimeUnit.SECONDS);
                }
                Set<Long> notPaid = notPaid(db, payments.name());
                int lost = (int) acknowledged.stream().filter(notPaid::contains).count();
                Figures f = new Figures(
                        sendsPerSecond,
                        callbacksPerSecond,
                        sends.size(),
                        sent.get(),
                        (int) sends.values().stream().filter(n -> n.get() > 1).count(),
                        sentBeforeKill,
                        sentAfterReturn.get(),
                        reconciledAsSent.size(),
                        callbacks.get(),
                        acknowledged.size(),
                        callbacksFailed.get(),
                        callbacksAfterReturn.get(),
                        lost,
                        (int) applied.values().stream().filter(n -> n.get() > 1).count(),
                        staleWrites(db, jobs.name(), lastClaim),
                        fencedRefused.get(),
                        transientRetries.get(),
                        since(kill, firstClaimAfterKill.get()),
                        since(kill, firstSendAfterKill.get()),
                        since(kill, firstCallbackAfterKill.get()),
                        seconds(synced - kill),
                        nodesAgree(cluster, jobs.name(), payments.name()),
                        epochBefore,
                        epoch(pool),
                        epochChanges.get(),
                        transitionsInDoubt.get());
                System.out.println("GALERA FAILOVER FIGURES " + f);
                watch.join(2_000);
                System.out.println(cluster.logTails());
                return f;
            } finally {
                stopCallbacks.set(true);
                callers.shutdownNow();
                worker.close();
            }
        }
    }

    /**
     * Completed rows whose {@code third_party_guid} names a token other than that of the row's highest attempt handed
     * to the handler: a completion that committed although another claim had taken the row since.
     */
    private static int staleWrites(TestDatabase db, String table, Map<Long, long[]> lastClaim) throws SQLException {
        int stale = 0;
        try (Connection c = db.connect();
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery(
                        "SELECT id, third_party_guid FROM " + table + " WHERE third_party_guid IS NOT NULL")) {
            while (rs.next()) {
                long[] last = lastClaim.get(rs.getLong(1));
                if (last == null || !rs.getString(2).equals("g" + last[1])) {
                    stale++;
                }
            }
        }
        return stale;
    }

    /** The payments that are not PAID. */
    private static Set<Long> notPaid(TestDatabase db, String table) throws SQLException {
        Set<Long> ids = new java.util.HashSet<>();
        try (Connection c = db.connect();
                Statement s = c.createStatement();
                ResultSet rs =
                        s.executeQuery("SELECT id FROM " + table + " WHERE payment_status <> " + Payment.PAID.code())) {
            while (rs.next()) {
                ids.add(rs.getLong(1));
            }
        }
        return ids;
    }

    /** Whether the three nodes hold the same rows of both tables (the rejoined node included). */
    private static boolean nodesAgree(GaleraCluster cluster, String... tables) throws SQLException {
        List<String> sums = new ArrayList<>();
        for (int node = 1; node <= 3; node++) {
            StringBuilder sum = new StringBuilder();
            try (Connection c = cluster.node(node).connect();
                    Statement s = c.createStatement()) {
                for (String t : tables) {
                    try (ResultSet rs = s.executeQuery("SELECT COUNT(*), SUM(CRC32(CONCAT_WS(',', id, payment_status,"
                            + " sync_status, third_party_guid, claim_token))) FROM " + t)) {
                        rs.next();
                        sum.append(rs.getLong(1))
                                .append('/')
                                .append(rs.getLong(2))
                                .append(' ');
                    }
                }
            }
            sums.add(sum.toString());
        }
        System.out.println("GALERA NODE SUMS " + sums);
        return sums.stream().distinct().count() == 1;
    }

    /** Prints, every 250 ms from the kill, what {@code node} says of the cluster (for the figures). */
    private static Thread watchNode(GaleraCluster cluster, int node, long kill, AtomicBoolean stop) {
        Thread t = new Thread(() -> {
            String last = "";
            while (!stop.get()) {
                String now = status(cluster, node);
                if (!now.equals(last)) {
                    System.out.println("GALERA WATCH +" + seconds(System.nanoTime() - kill) + " s " + now);
                    last = now;
                }
                try {
                    Thread.sleep(250);
                } catch (InterruptedException e) {
                    return;
                }
            }
        });
        t.setDaemon(true);
        t.start();
        return t;
    }

    private static String status(GaleraCluster cluster, int node) {
        StringBuilder out = new StringBuilder("node ").append(node).append(':');
        Properties p = new Properties();
        p.setProperty("user", "root");
        p.setProperty("connectTimeout", "1000");
        p.setProperty("socketTimeout", "1000");
        String url = cluster.node(node).jdbcUrl().replaceAll("\\?.*", "");
        try (Connection c = java.sql.DriverManager.getConnection(url, p);
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SHOW STATUS WHERE Variable_name IN ('wsrep_ready',"
                        + " 'wsrep_cluster_status', 'wsrep_cluster_size', 'wsrep_local_state_comment')")) {
            while (rs.next()) {
                out.append(' ').append(rs.getString(2));
            }
        } catch (RuntimeException | SQLException e) {
            out.append(' ').append(e.getClass().getSimpleName());
        }
        return out.toString();
    }

    /** What the surviving nodes say of the cluster, for a failure message. */
    private static String status(GaleraCluster cluster) {
        StringBuilder out = new StringBuilder();
        for (int node = 1; node <= 3; node++) {
            if (node == KILLED) {
                continue;
            }
            out.append("node ").append(node).append(':');
            try (Connection c = cluster.node(node).connect();
                    Statement s = c.createStatement();
                    ResultSet rs = s.executeQuery("SHOW STATUS WHERE Variable_name IN ('wsrep_ready',"
                            + " 'wsrep_cluster_status', 'wsrep_cluster_size', 'wsrep_local_state_comment')")) {
                while (rs.next()) {
                    out.append(' ').append(rs.getString(1)).append('=').append(rs.getString(2));
                }
            } catch (RuntimeException | SQLException e) {
                out.append(' ').append(e);
            }
            out.append('\n');
        }
        return out.toString();
    }

    /** What Baton reads as the epoch of the node the pool writes to: the cluster's state UUID. */
    private static String epoch(HikariDataSource pool) throws SQLException {
        try (Connection c = pool.getConnection()) {
            return MySqlDiagnostics.galeraEpoch(c).orElse("none");
        }
    }

    private static String nodeName(HikariDataSource pool) throws SQLException {
        try (Connection c = pool.getConnection();
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT @@wsrep_node_name")) {
            rs.next();
            return rs.getString(1);
        }
    }

    /**
     * The cluster's {@code sequential} URL with what MariaDB Connector/J needs to fail over between Galera nodes: a
     * node that answered with an error during the view change after the kill (or one still joining) is denied for
     * {@code deniedListTimeout} (60 s by default: with node 1 dead and nodes 2 and 3 denied, no connection succeeded
     * for a minute in the first run); {@code galeraAllowedState=4} connects only to a synced node (not to node 1
     * while it receives its state transfer); with the default {@code retriesAllDown} (120) the first claim after the
     * kill came only after 30 s in three runs, with 8 after the view change (about 6 s).
     */
    static HikariDataSource failoverPool(TestDatabase db) {
        HikariDataSource pool = new HikariDataSource();
        pool.setPoolName("galera-failover");
        pool.setJdbcUrl(db.jdbcUrl() + DRIVER_OPTIONS);
        pool.setUsername(db.user());
        pool.setPassword(db.password());
        pool.setMaximumPoolSize(24);
        pool.setConnectionTimeout(10_000);
        return pool;
    }

    /** A queue with a non-idempotent sink, retried quickly (a failover is not the row's fault). */
    private static ClaimQueue<Sync> sendingQueue(Baton baton, String table) {
        StateTable<Payment> paid = baton.table(table).state("payment_status", Payment.MACHINE);
        return baton.<Sync>queue("galera-" + table)
                .table(table)
                .claim("sync_status", Sync.MACHINE, Sync.PENDING, Sync.PROCESSING)
                .eligibleWhen(paid.is(Payment.PAID), Condition.isNull("third_party_guid"))
                .deadState(Sync.FAILED)
                .nonIdempotentSink(Sync.SENDING, Sync.UNKNOWN)
                .sendDurability(SendDurability.OFF, Duration.ofSeconds(1))
                .retry(RetryPolicy.fixed(Duration.ofMillis(100)).maxAttempts(1_000))
                .lease(Duration.ofSeconds(3))
                .build();
    }
}
