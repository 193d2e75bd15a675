package dev.baton.mysql;

import static dev.baton.testkit.failover.Timing.await;
import static dev.baton.testkit.failover.Timing.seconds;
import static dev.baton.testkit.failover.Timing.since;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.zaxxer.hikari.HikariDataSource;
import dev.baton.Baton;
import dev.baton.BatonListener;
import dev.baton.ClaimQueue;
import dev.baton.Condition;
import dev.baton.EpochChange;
import dev.baton.Outcome;
import dev.baton.QueueHealth;
import dev.baton.RetryPolicy;
import dev.baton.SendDurability;
import dev.baton.StateTable;
import dev.baton.Worker;
import dev.baton.testkit.compat.JobsTable;
import dev.baton.testkit.compat.Payment;
import dev.baton.testkit.compat.Sync;
import dev.baton.testservers.MariaDbReplication;
import dev.baton.testservers.MariaDbReplication.Replication;
import dev.baton.testservers.TestDatabase;
import java.sql.SQLException;
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
 * The failover suite on MariaDB 10.11: a primary with a GTID replica ({@link MariaDbReplication}), the primary killed with {@code
 * kill -9} in the middle of a run of one worker with a non-idempotent sink (a SENDING mark committed before each send,
 * a reconciler that asks the sink), then the replica promoted; the clients find the writer through a {@code
 * jdbc:mariadb:sequential:} URL naming the primary, then the replica. A recording sink counts every send.
 *
 * <ul>
 *   <li>Semi-synchronous replica (lossless: every acknowledged commit was received by the replica), promoted 0.3 s
 *       after the kill: meanwhile new connections reach the read-only replica, whose error 1290 Baton treats as a
 *       failover error and retries. Every row is sent exactly once.
 *   <li>Asynchronous replica that stopped receiving the binary log 1.5 s before the kill (lossy). With {@link
 *       SendDurability#OFF} the new primary has rows whose marks were lost; Baton sees the {@code server_id} change at
 *       its next claim and reports those sends in doubt ({@link EpochChange}), moving their rows to reconciliation:
 *       no row is sent twice by this worker.
 *   <li>The same lossy failover on a semi-synchronous primary (500 ms timeout, after which it goes on alone) with
 *       {@link SendDurability#REQUIRE}: a send starts only once the primary reports semi-synchronous replication on
 *       after the mark's commit, so no mark a send depended on is lost.
 * </ul>
 *
 * <p>Skipped only when the machine has no MariaDB server (see {@link MariaDbReplication#start}).
 */
class MariaDbFailoverTest {
    private static final int ROWS = 8_000;
    private static final int KILL_AFTER_SENDS = 2_000;
    private static final Duration LOST_WINDOW = Duration.ofMillis(1_500);
    /** The lossy window ends early after this many sends. */
    private static final int LOST_SENDS_AT_MOST = 1_500;
    /** Between the kill and the promotion in the lossless case: writes meanwhile reach the read-only replica. */
    private static final Duration PROMOTION_DELAY = Duration.ofMillis(300);
    /** MariaDB's "running with the --read-only option". */
    private static final int READ_ONLY = 1290;

    /** What happens to the primary. */
    enum Fault {
        /** Kill -9, promote 0.3 s later; the semi-synchronous replica had every acknowledged commit. */
        KILL,
        /** The replica stops receiving the binary log, 1.5 s later kill -9, promote: the last 1.5 s are lost. */
        KILL_LOSSY
    }

    @Test
    void aLosslessFailoverSendsEveryRowExactlyOnce() throws Exception {
        // a timeout far above any acknowledgement here: the primary never goes on without the replica
        try (MariaDbReplication topology = MariaDbReplication.start(Replication.SEMI_SYNC, Duration.ofSeconds(30))) {
            Figures f = run(topology, Fault.KILL, SendDurability.OFF);
            assertEquals(0, f.sentTwice(), f.toString());
            assertEquals(ROWS, f.rowsSent(), f.toString());
            // every acknowledged mark was on the replica: Baton saw the new server_id and lost nothing
            assertEquals(1, f.epochChanges(), f.toString());
            assertEquals(0, f.lostMarks(), f.toString());
            assertEquals(0, f.lostAcknowledgedCompletions(), f.toString());
        }
    }

    /**
     * Contract items 2 and 4 on MariaDB: without the durability precondition the failover loses acknowledged marks;
     * Baton counts them itself ({@link EpochChange#lostMarks()}) and sends those rows to reconciliation instead of
     * claiming them again.
     */
    @Test
    void aLossyFailoverReportsTheSendsWhoseMarksWereLostAndReconcilesThem() throws Exception {
        try (MariaDbReplication topology = MariaDbReplication.start(Replication.ASYNC)) {
            assertRequireRefusedWithoutSemiSync(topology.database());
            Figures f = run(topology, Fault.KILL_LOSSY, SendDurability.OFF);
            assertEquals(ROWS, f.rowsSent(), f.toString());
            assertEquals(1, f.epochChanges(), f.toString());
            assertTrue(f.lostMarks() > 0, "expected marks lost with the old primary: " + f);
            assertEquals(0, f.sentTwice(), f.toString());
            // every row whose mark was lost was sent, and reached the reconciler, which found it at the sink
            assertTrue(f.reconciledAsSent() >= f.lostMarks(), f.toString());
        }
    }

    /**
     * The lossy failover on a semi-synchronous primary that falls back to asynchronous replication after 500 ms
     * without an answer, with {@link SendDurability#REQUIRE}: while the replica receives nothing, marks are refused
     * and no send starts; the marks the failover loses are those of rows not sent. The old primary's node comes back
     * as the new primary's replica, so sends go on.
     */
    @Test
    void aLossyFailoverWithDurableMarksRequiredSendsNoRowTwice() throws Exception {
        try (MariaDbReplication topology = MariaDbReplication.start(Replication.SEMI_SYNC)) {
            Figures f = run(topology, Fault.KILL_LOSSY, SendDurability.REQUIRE);
            assertEquals(ROWS, f.rowsSent(), f.toString());
            assertEquals(0, f.sentTwice(), f.toString());
            // every mark that let a send start was received by the replica: none was in doubt
            assertEquals(0, f.marksNotKnownDurable(), f.toString());
            assertEquals(0, f.lostMarks(), f.toString());
            assertTrue(f.refusedMarks() > 0, "marks should have been refused while the replica received nothing: " + f);
        }
    }

    /** On an asynchronous primary no mark is known durable: verify() refuses a REQUIRE queue, and health says 0. */
    private static void assertRequireRefusedWithoutSemiSync(TestDatabase db) {
        JobsTable jobs = JobsTable.create(db, "mrequire", true);
        try (HikariDataSource pool = db.newDataSource(2)) {
            Baton baton = Baton.builder(pool).build();
            ClaimQueue<Sync> queue = sendingQueue(baton, jobs.name(), SendDurability.REQUIRE);
            QueueHealth h = queue.health();
            assertEquals(0, h.failoverStandbys(), h.toString());
            assertThrows(RuntimeException.class, queue::verify);
        }
    }

    /** What one run measured. */
    record Figures(
            String mode,
            double sendsPerSecondBeforeTheFault,
            int rowsSent,
            int sentTwice,
            int sends,
            int sentBeforeKill,
            double killToPromotedSeconds,
            double killToFirstClaimSeconds,
            double killToFirstSendSeconds,
            double killToAllCompletedSeconds,
            int serverIdBefore,
            int serverIdAfter,
            int epochChanges,
            int marksNotKnownDurable,
            long lostMarks,
            int reconciledAsSent,
            int lostAcknowledgedCompletions,
            int transientRetries,
            int readOnlyRetries,
            int refusedMarks) {}

    private static Figures run(MariaDbReplication topology, Fault fault, SendDurability durability) throws Exception {
        TestDatabase db = topology.database();
        JobsTable jobs = JobsTable.create(db, "mfailover", true);
        jobs.insert(1, ROWS, Payment.PAID);
        Map<Long, AtomicInteger> sends = new ConcurrentHashMap<>();
        AtomicInteger sent = new AtomicInteger();
        AtomicLong killed = new AtomicLong(); // set once the primary is gone
        AtomicLong firstClaimAfterKill = new AtomicLong();
        AtomicLong firstSendAfterKill = new AtomicLong();
        AtomicInteger transientRetries = new AtomicInteger();
        AtomicInteger readOnlyRetries = new AtomicInteger();
        AtomicInteger refusedMarks = new AtomicInteger();
        List<EpochChange> epochChanges = new CopyOnWriteArrayList<>();
        Set<Long> reconciledAsSent = ConcurrentHashMap.newKeySet();
        // rows whose completion Baton acknowledged, and those of them handled or reconciled again afterwards
        Set<Object> acknowledged = ConcurrentHashMap.newKeySet();
        Set<Object> lostAcknowledged = ConcurrentHashMap.newKeySet();
        try (HikariDataSource pool = db.newDataSource(16)) {
            Baton baton = Baton.builder(pool)
                    .listener(new BatonListener() {
                        @Override
                        public void onClaim(String queue, int count) {
                            if (killed.get() != 0 && count > 0) {
                                firstClaimAfterKill.compareAndSet(0, System.nanoTime());
                            }
                        }

                        @Override
                        public void onTransientRetry(String operation, int attempt, SQLException cause) {
                            transientRetries.incrementAndGet();
                            for (Throwable t = cause; t != null; t = t.getCause()) {
                                if (t instanceof SQLException s && s.getErrorCode() == READ_ONLY) {
                                    readOnlyRetries.incrementAndGet();
                                    break;
                                }
                            }
                        }

                        @Override
                        public void onEpochChange(EpochChange change) {
                            epochChanges.add(change);
                        }

                        @Override
                        public void onSendNotDurable(String queue, Object id, SendDurability policy) {
                            refusedMarks.incrementAndGet();
                        }

                        @Override
                        public void onSettled(String queue, Object id, int attempt, Settled settled) {
                            if (settled == Settled.COMPLETED) {
                                acknowledged.add(id);
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
                await("the first " + KILL_AFTER_SENDS + " sends", () -> sent.get() >= KILL_AFTER_SENDS, 60);
                double sendsPerSecond = Math.round(sent.get() / seconds(System.nanoTime() - started));
                int serverIdBefore = topology.writerServerId();
                if (fault == Fault.KILL_LOSSY) {
                    topology.pauseReplication();
                    // 1.5 s, or fewer when the worker is fast: rows must be left to send after the failover
                    int paused = sent.get();
                    long until = System.nanoTime() + LOST_WINDOW.toNanos();
                    while (System.nanoTime() < until && sent.get() < paused + LOST_SENDS_AT_MOST) {
                        Thread.sleep(5);
                    }
                }
                int sentBeforeKill = sent.get();
                long kill = System.nanoTime();
                topology.killPrimary();
                killed.set(System.nanoTime());
                if (fault == Fault.KILL) {
                    Thread.sleep(PROMOTION_DELAY.toMillis());
                }
                topology.promoteReplica();
                long promoted = System.nanoTime();
                if (durability == SendDurability.REQUIRE) {
                    // as a failover manager would: the old primary's node comes back as the new primary's replica
                    topology.rebuildOldPrimaryAsReplica();
                }
                await(
                        "every row completed on the new primary",
                        () -> completed(jobs) == ROWS,
                        60,
                        () -> "completed " + completed(jobs) + ", sends " + sent.get());
                long allCompleted = System.nanoTime();
                int twice =
                        (int) sends.values().stream().filter(n -> n.get() > 1).count();
                Figures f = new Figures(
                        fault + " " + topology.replication() + " sendDurability " + durability,
                        sendsPerSecond,
                        sends.size(),
                        twice,
                        sent.get(),
                        sentBeforeKill,
                        seconds(promoted - kill),
                        since(kill, firstClaimAfterKill.get()),
                        since(kill, firstSendAfterKill.get()),
                        seconds(allCompleted - kill),
                        serverIdBefore,
                        topology.writerServerId(),
                        epochChanges.size(),
                        epochChanges.stream()
                                .mapToInt(EpochChange::marksNotKnownDurable)
                                .sum(),
                        epochChanges.stream().mapToLong(EpochChange::lostMarks).sum(),
                        reconciledAsSent.size(),
                        lostAcknowledged.size(),
                        transientRetries.get(),
                        readOnlyRetries.get(),
                        refusedMarks.get());
                System.out.println("FAILOVER FIGURES MariaDB " + f);
                return f;
            } finally {
                worker.close();
            }
        }
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

    /** Completed rows, or -1 while the driver finds no writer (its denied list may still hold both hosts). */
    private static int completed(JobsTable jobs) {
        try {
            return jobs.countBySync().getOrDefault(Sync.COMPLETED, 0);
        } catch (AssertionError | RuntimeException e) {
            return -1;
        }
    }
}
