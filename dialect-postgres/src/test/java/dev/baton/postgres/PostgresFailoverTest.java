package dev.baton.postgres;

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
import dev.baton.EpochChange;
import dev.baton.Outcome;
import dev.baton.RetryPolicy;
import dev.baton.SendDurability;
import dev.baton.StateTable;
import dev.baton.Worker;
import dev.baton.testkit.compat.JobsTable;
import dev.baton.testkit.compat.Payment;
import dev.baton.testkit.compat.Sync;
import dev.baton.testservers.PostgresCluster;
import dev.baton.testservers.PostgresCluster.Replication;
import dev.baton.testservers.TcpProxy;
import dev.baton.testservers.TestDatabase;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * A primary with a streaming standby, killed with {@code kill -9} in the middle of a run of one worker with a
 * non-idempotent sink (a SENDING mark committed before each send, a reconciler that asks the sink), then the standby
 * promoted; the clients find the new primary through the multi-host URL. A recording sink counts every send.
 *
 * <ul>
 *   <li>Synchronous standby (lossless: every acknowledged commit is on the standby): every row is sent exactly once.
 *   <li>Asynchronous standby that stopped receiving WAL 1.5 s before the kill (lossy: the marks and completions of
 *       those 1.5 s are lost with the primary). With {@link SendDurability#OFF} the new primary has rows whose marks
 *       were lost; Baton sees the timeline change at its next claim and reports those sends in doubt ({@link
 *       EpochChange}), moving their rows to reconciliation: no row is sent twice by this worker. Before the epoch
 *       watch, 2,013–2,662 rows were sent twice here. With {@link SendDurability#REQUIRE} no mark is lost in the
 *       first place.
 * </ul>
 *
 * <p>Skipped only when the machine has no PostgreSQL server binaries (see {@link PostgresCluster#start}).
 */
class PostgresFailoverTest {
    private static final int ROWS = 10_000;
    private static final int KILL_AFTER_SENDS = 2_000;
    private static final int FLIP_ROWS = 4_000;
    private static final int FLIP_AFTER_SENDS = 1_000;

    /** What happens to the primary. */
    enum Fault {
        /** Kill -9, promote; the standby had everything. */
        KILL,
        /** The standby stops receiving WAL, 1.5 s later kill -9, promote: the last 1.5 s of commits are lost. */
        KILL_LOSSY,
        /**
         * Clients reach the writer through a TCP proxy. The primary is fenced (read-only, still running), the
         * synchronous standby promoted, the proxy flipped to it: connections opened before stay piped to the fenced
         * old primary and get 25006 for every write.
         */
        FENCE_AND_FLIP
    }

    private static final Duration LOST_WINDOW = Duration.ofMillis(1_500);

    @Test
    void aLosslessFailoverSendsEveryRowExactlyOnce() throws Exception {
        try (PostgresCluster cluster = PostgresCluster.start(Replication.SYNC)) {
            Figures f = run(cluster, Fault.KILL, SendDurability.OFF);
            assertEquals(0, f.sentTwice(), f.toString());
            assertEquals(ROWS, f.rowsSent(), f.toString());
            assertEquals(f.timelineBefore() + 1, f.timelineAfter(), f.toString());
            // every acknowledged mark was on the synchronous standby: Baton saw the new timeline and lost nothing
            assertEquals(1, f.epochChanges(), f.toString());
            assertEquals(0, f.lostMarks(), f.toString());
            assertEquals(0, f.lostAcknowledgedCompletions(), f.toString());
        }
    }

    /**
     * Contract items 2 and 4: without the durability precondition the failover loses acknowledged marks; Baton counts
     * them itself ({@link EpochChange#lostMarks()}) and sends those rows to reconciliation, which asks the sink,
     * instead of claiming them again. Before the epoch watch this run sent 2,013–2,662 rows twice.
     */
    @Test
    void aLossyFailoverReportsTheSendsWhoseMarksWereLostAndReconcilesThem() throws Exception {
        try (PostgresCluster cluster = PostgresCluster.start(Replication.ASYNC)) {
            Figures f = run(cluster, Fault.KILL_LOSSY, SendDurability.OFF);
            assertEquals(ROWS, f.rowsSent(), f.toString());
            assertEquals(1, f.epochChanges(), f.toString());
            assertTrue(f.lostMarks() > 0, "expected marks lost with the old primary: " + f);
            assertEquals(0, f.sentTwice(), f.toString());
            // every row whose mark was lost was sent, and reached the reconciler, which found it at the sink
            assertTrue(f.reconciledAsSent() >= f.lostMarks(), f.toString());
        }
    }

    /**
     * The same lossy failover with {@link SendDurability#REQUIRE}: a send starts only once the standby has flushed
     * its SENDING mark, so the marks the failover loses are those of rows not sent yet, and no row is sent twice.
     */
    @Test
    void aLossyFailoverWithDurableMarksRequiredSendsNoRowTwice() throws Exception {
        try (PostgresCluster cluster = PostgresCluster.start(Replication.ASYNC)) {
            Figures f = run(cluster, Fault.KILL_LOSSY, SendDurability.REQUIRE);
            assertEquals(ROWS, f.rowsSent(), f.toString());
            assertEquals(0, f.sentTwice(), f.toString());
            // every mark that let a send start was on the standby: none was in doubt
            assertEquals(0, f.marksNotKnownDurable(), f.toString());
            assertEquals(0, f.lostMarks(), f.toString());
        }
    }

    /**
     * A writer flip behind a TCP proxy that keeps old sockets open: the pooled
     * connections to the fenced old primary answer every write with 25006; Baton aborts them and retries on new
     * connections, which the proxy sends to the new primary. Nothing is lost (synchronous standby): every row is sent
     * exactly once, none is dead, and the timeline change finds every mark on the new writer.
     */
    @Test
    void aWriterFlipBehindAProxyThatKeepsOldSocketsSendsEveryRowOnce() throws Exception {
        try (PostgresCluster cluster = PostgresCluster.start(Replication.SYNC)) {
            Figures f = run(cluster, Fault.FENCE_AND_FLIP, SendDurability.OFF);
            assertEquals(FLIP_ROWS, f.rowsSent(), f.toString());
            assertEquals(0, f.sentTwice(), f.toString());
            // the old sockets were used: writes on them were refused (25006) and retried on new connections
            assertTrue(f.transientRetries() > 0, f.toString());
            assertEquals(1, f.epochChanges(), f.toString());
            assertEquals(0, f.lostMarks(), f.toString());
            assertEquals(0, f.lostAcknowledgedCompletions(), f.toString());
        }
    }

    /** What one run measured. */
    record Figures(
            String mode,
            double sendsPerSecondBeforeTheFault,
            int retries,
            int rowsSent,
            int sentTwice,
            int sends,
            int sentBeforeKill,
            double killToPromotedSeconds,
            double killToStandbyRebuiltSeconds,
            double killToFirstClaimSeconds,
            double killToFirstSendSeconds,
            double killToFirstCompletionSeconds,
            int timelineBefore,
            int timelineAfter,
            int epochChanges,
            int marksNotKnownDurable,
            long lostMarks,
            int reconciledAsSent,
            int lostAcknowledgedCompletions,
            int transientRetries) {}

    private static Figures run(PostgresCluster cluster, Fault fault, SendDurability durability) throws Exception {
        TestDatabase db = cluster.database();
        int rows = fault == Fault.FENCE_AND_FLIP ? FLIP_ROWS : ROWS;
        int faultAfter = fault == Fault.FENCE_AND_FLIP ? FLIP_AFTER_SENDS : KILL_AFTER_SENDS;
        JobsTable jobs = JobsTable.create(db, "failover", true);
        jobs.insert(1, rows, Payment.PAID);
        Map<Long, AtomicInteger> sends = new ConcurrentHashMap<>();
        AtomicInteger sent = new AtomicInteger();
        AtomicLong killed = new AtomicLong(); // set once the primary's processes are gone
        AtomicLong firstClaimAfterKill = new AtomicLong();
        AtomicLong firstCompletionAfterKill = new AtomicLong();
        AtomicInteger retries = new AtomicInteger();
        AtomicLong firstSendAfterKill = new AtomicLong();
        AtomicInteger transientRetries = new AtomicInteger();
        List<EpochChange> epochChanges = new CopyOnWriteArrayList<>();
        Set<Long> reconciledAsSent = ConcurrentHashMap.newKeySet();
        // rows whose completion Baton acknowledged, and those of them handled or reconciled again afterwards: an
        // acknowledged transition the failover lost
        Set<Object> acknowledged = ConcurrentHashMap.newKeySet();
        Set<Object> lostAcknowledged = ConcurrentHashMap.newKeySet();
        TcpProxy proxy = fault == Fault.FENCE_AND_FLIP ? TcpProxy.start(cluster.primaryPort()) : null;
        try (HikariDataSource pool = proxy == null ? db.newDataSource(16) : viaProxy(proxy, db)) {
            Baton baton = Baton.builder(pool)
                    .listener(new BatonListener() {
                        @Override
                        public void onClaim(String queue, int count) {
                            if (killed.get() != 0 && count > 0) {
                                firstClaimAfterKill.compareAndSet(0, System.nanoTime());
                            }
                        }

                        @Override
                        public void onTransientRetry(String operation, int attempt, java.sql.SQLException cause) {
                            transientRetries.incrementAndGet();
                        }

                        @Override
                        public void onEpochChange(EpochChange change) {
                            epochChanges.add(change);
                        }

                        @Override
                        public void onSettled(String queue, Object id, int attempt, Settled settled) {
                            if (settled == Settled.COMPLETED) {
                                acknowledged.add(id);
                            }
                        }

                        @Override
                        public void onOutcome(String queue, Object id, Outcome.Kind kind, Enum<?> state, int attempt) {
                            if (killed.get() != 0 && kind == Outcome.Kind.COMPLETE) {
                                firstCompletionAfterKill.compareAndSet(0, System.nanoTime());
                            }
                            if (kind == Outcome.Kind.RETRY) {
                                retries.incrementAndGet();
                            }
                        }
                    })
                    .build();
            ClaimQueue<Sync> queue = sendingQueue(baton, jobs.name(), durability);
            long started = System.nanoTime();
            Worker worker = baton.worker(queue)
                    .batchSize(50)
                    .concurrency(8)
                    .pollInterval(Duration.ofMillis(10), Duration.ofMillis(100))
                    .sweepInterval(Duration.ofMillis(500))
                    .handle(row -> {
                        long id = ((Number) row.id()).longValue();
                        if (acknowledged.contains(row.id())) {
                            lostAcknowledged.add(row.id());
                        }
                        sends.computeIfAbsent(id, k -> new AtomicInteger()).incrementAndGet();
                        sent.incrementAndGet();
                        if (killed.get() != 0) {
                            firstSendAfterKill.compareAndSet(0, System.nanoTime());
                        }
                        return Outcome.complete(Sync.COMPLETED).set("third_party_guid", "g" + row.token());
                    })
                    // the sink is the truth for a send in doubt: a row it has is complete, one it lacks goes again
                    .reconcile(id -> {
                        long n = ((Number) id).longValue();
                        if (acknowledged.contains(id)) {
                            lostAcknowledged.add(id);
                        }
                        if (sends.containsKey(n)) {
                            reconciledAsSent.add(n);
                            return Outcome.complete(Sync.COMPLETED);
                        }
                        return Outcome.release();
                    })
                    .start();
            try {
                await("the first " + faultAfter + " sends", () -> sent.get() >= faultAfter, 60);
                double sendsPerSecond = Math.round(sent.get() / seconds(System.nanoTime() - started));
                int timelineBefore = cluster.timeline();
                if (fault == Fault.KILL_LOSSY) {
                    cluster.detachStandby();
                    Thread.sleep(LOST_WINDOW.toMillis());
                }
                int sentBeforeKill = sent.get();
                long kill = System.nanoTime();
                if (fault == Fault.FENCE_AND_FLIP) {
                    cluster.fencePrimary();
                    // as a failover manager waits for the standby to catch up: commits in flight at the fence get the
                    // synchronous standby's answer before it is promoted
                    Thread.sleep(200);
                } else {
                    cluster.killPrimary();
                }
                killed.set(System.nanoTime());
                cluster.promoteStandby();
                long promoted = System.nanoTime();
                if (proxy != null) {
                    proxy.flip(cluster.primaryPort()); // new connections only: the old ones stay on the fenced node
                } else {
                    // as a failover manager would, the old primary's node comes back as the new primary's standby
                    cluster.rebuildStandby();
                }
                long rebuilt = System.nanoTime();
                await(
                        "every row completed on the new primary",
                        () -> jobs.countBySync().getOrDefault(Sync.COMPLETED, 0) == rows,
                        120,
                        () -> "by state " + jobs.countBySync() + ", sends " + sent.get());
                int timelineAfter = cluster.timeline();
                int twice =
                        (int) sends.values().stream().filter(n -> n.get() > 1).count();
                Figures f = new Figures(
                        fault + " " + cluster.replication() + " sendDurability " + durability,
                        sendsPerSecond,
                        retries.get(),
                        sends.size(),
                        twice,
                        sent.get(),
                        sentBeforeKill,
                        seconds(promoted - kill),
                        seconds(rebuilt - kill),
                        since(kill, firstClaimAfterKill.get()),
                        since(kill, firstSendAfterKill.get()),
                        since(kill, firstCompletionAfterKill.get()),
                        timelineBefore,
                        timelineAfter,
                        epochChanges.size(),
                        epochChanges.stream()
                                .mapToInt(EpochChange::marksNotKnownDurable)
                                .sum(),
                        epochChanges.stream().mapToLong(EpochChange::lostMarks).sum(),
                        reconciledAsSent.size(),
                        lostAcknowledged.size(),
                        transientRetries.get());
                System.out.println("FAILOVER FIGURES " + f);
                return f;
            } finally {
                worker.close();
            }
        } finally {
            if (proxy != null) {
                proxy.close();
            }
        }
    }

    /** A pool whose every connection goes through {@code proxy} to whichever server it points at. */
    private static HikariDataSource viaProxy(TcpProxy proxy, TestDatabase db) {
        HikariDataSource pool = new HikariDataSource();
        pool.setJdbcUrl("jdbc:postgresql://127.0.0.1:" + proxy.port() + "/test?connectTimeout=2");
        pool.setUsername(db.user());
        pool.setMaximumPoolSize(16);
        pool.setConnectionTimeout(10_000);
        return pool;
    }

    /** The seed's queue with a non-idempotent sink, retried quickly (a failover is not the row's fault). */
    private static ClaimQueue<Sync> sendingQueue(Baton baton, String table, SendDurability durability) {
        StateTable<Payment> payments = baton.table(table).state("payment_status", Payment.MACHINE);
        return baton.<Sync>queue("failover-" + table)
                .table(table)
                .claim("sync_status", Sync.MACHINE, Sync.PENDING, Sync.PROCESSING)
                .eligibleWhen(payments.is(Payment.PAID), Condition.isNull("third_party_guid"))
                .deadState(Sync.FAILED)
                .nonIdempotentSink(Sync.SENDING, Sync.UNKNOWN)
                .sendDurability(durability, Duration.ofSeconds(1))
                .retry(RetryPolicy.fixed(Duration.ofMillis(100)).maxAttempts(1_000))
                .lease(Duration.ofSeconds(3))
                .build();
    }
}
