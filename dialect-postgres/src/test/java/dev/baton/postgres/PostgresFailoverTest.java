package dev.baton.postgres;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.zaxxer.hikari.HikariDataSource;
import dev.baton.Baton;
import dev.baton.BatonListener;
import dev.baton.ClaimQueue;
import dev.baton.Condition;
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
import dev.baton.testservers.TestDatabase;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Test;

/**
 * Issue 24: a primary with a streaming standby, killed with {@code kill -9} in the middle of a run of one worker with a
 * non-idempotent sink (a SENDING mark committed before each send, a reconciler that asks the sink), then the standby
 * promoted; the clients find the new primary through the multi-host URL. A recording sink counts every send.
 *
 * <ul>
 *   <li>Synchronous standby (lossless: every acknowledged commit is on the standby): every row is sent exactly once.
 *   <li>Asynchronous standby that stopped receiving WAL 1.5 s before the kill (lossy: the marks and completions of
 *       those 1.5 s are lost with the primary): rows are sent twice. This is today's baseline: nothing in Baton yet
 *       asks whether a SENDING mark is durable on the failover target before the send (issue 24, contract item 5).
 * </ul>
 *
 * <p>Skipped only when the machine has no PostgreSQL server binaries (see {@link PostgresCluster#start}).
 */
class PostgresFailoverTest {
    private static final int ROWS = 10_000;
    private static final int KILL_AFTER_SENDS = 2_000;
    private static final Duration LOST_WINDOW = Duration.ofMillis(1_500);

    @Test
    void aLosslessFailoverSendsEveryRowExactlyOnce() throws Exception {
        try (PostgresCluster cluster = PostgresCluster.start(Replication.SYNC)) {
            Figures f = run(cluster, false, SendDurability.OFF);
            assertEquals(0, f.sentTwice(), f.toString());
            assertEquals(ROWS, f.rowsSent(), f.toString());
            assertEquals(f.timelineBefore() + 1, f.timelineAfter(), f.toString());
        }
    }

    @Test
    void aLossyFailoverSendsTheRowsWhoseMarksWereLostTwice() throws Exception {
        try (PostgresCluster cluster = PostgresCluster.start(Replication.ASYNC)) {
            Figures f = run(cluster, true, SendDurability.OFF);
            assertEquals(ROWS, f.rowsSent(), f.toString());
            // the baseline of contract item 5: no durability precondition yet, so the rows whose SENDING marks and
            // completions only the old primary had are claimed again on the new one and sent a second time
            assertTrue(f.sentTwice() > 0, "expected double sends without a durability precondition: " + f);
        }
    }

    /**
     * The same lossy failover with {@link SendDurability#REQUIRE}: a send starts only once the standby has flushed
     * its SENDING mark, so the marks the failover loses are those of rows not sent yet, and no row is sent twice.
     */
    @Test
    void aLossyFailoverWithDurableMarksRequiredSendsNoRowTwice() throws Exception {
        try (PostgresCluster cluster = PostgresCluster.start(Replication.ASYNC)) {
            Figures f = run(cluster, true, SendDurability.REQUIRE);
            assertEquals(ROWS, f.rowsSent(), f.toString());
            assertEquals(0, f.sentTwice(), f.toString());
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
            int timelineAfter) {}

    private static Figures run(PostgresCluster cluster, boolean lossy, SendDurability durability) throws Exception {
        TestDatabase db = cluster.database();
        JobsTable jobs = JobsTable.create(db, "failover", true);
        jobs.insert(1, ROWS, Payment.PAID);
        Map<Long, AtomicInteger> sends = new ConcurrentHashMap<>();
        AtomicInteger sent = new AtomicInteger();
        AtomicLong killed = new AtomicLong(); // set once the primary's processes are gone
        AtomicLong firstClaimAfterKill = new AtomicLong();
        AtomicLong firstCompletionAfterKill = new AtomicLong();
        AtomicInteger retries = new AtomicInteger();
        AtomicLong firstSendAfterKill = new AtomicLong();
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
                        sends.computeIfAbsent(id, k -> new AtomicInteger()).incrementAndGet();
                        sent.incrementAndGet();
                        if (killed.get() != 0) {
                            firstSendAfterKill.compareAndSet(0, System.nanoTime());
                        }
                        return Outcome.complete(Sync.COMPLETED).set("third_party_guid", "g" + row.token());
                    })
                    // the sink is the truth for a send in doubt: a row it has is complete, one it lacks goes again
                    .reconcile(id -> sends.containsKey(((Number) id).longValue())
                            ? Outcome.complete(Sync.COMPLETED)
                            : Outcome.release())
                    .start();
            try {
                await("the first " + KILL_AFTER_SENDS + " sends", () -> sent.get() >= KILL_AFTER_SENDS, 60);
                double sendsPerSecond = Math.round(sent.get() / seconds(System.nanoTime() - started));
                int timelineBefore = cluster.timeline();
                if (lossy) {
                    cluster.detachStandby();
                    Thread.sleep(LOST_WINDOW.toMillis());
                }
                int sentBeforeKill = sent.get();
                long kill = System.nanoTime();
                cluster.killPrimary();
                killed.set(System.nanoTime());
                cluster.promoteStandby();
                long promoted = System.nanoTime();
                // as a failover manager would, the old primary's node comes back as the new primary's standby
                cluster.rebuildStandby();
                long rebuilt = System.nanoTime();
                await(
                        "every row completed on the new primary",
                        () -> jobs.countBySync().getOrDefault(Sync.COMPLETED, 0) == ROWS,
                        120,
                        () -> "by state " + jobs.countBySync() + ", sends " + sent.get());
                int timelineAfter = cluster.timeline();
                int twice =
                        (int) sends.values().stream().filter(n -> n.get() > 1).count();
                Figures f = new Figures(
                        (lossy ? "lossy " : "lossless ") + cluster.replication() + " sendDurability " + durability,
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
                        timelineAfter);
                System.out.println("FAILOVER FIGURES " + f);
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

    private static double since(long start, long end) {
        return end == 0 ? -1 : seconds(end - start);
    }

    private static double seconds(long nanos) {
        return Math.round(nanos / 1e7) / 100.0;
    }

    private static void await(String what, BooleanSupplier done, int seconds) throws InterruptedException {
        await(what, done, seconds, () -> "");
    }

    private static void await(String what, BooleanSupplier done, int seconds, java.util.function.Supplier<String> state)
            throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(seconds).toNanos();
        while (!done.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("not within " + seconds + " s: " + what + "; " + state.get());
            }
            Thread.sleep(100);
        }
    }
}
