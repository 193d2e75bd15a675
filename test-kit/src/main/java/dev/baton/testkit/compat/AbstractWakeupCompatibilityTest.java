package dev.baton.testkit.compat;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.baton.Baton;
import dev.baton.BatonInterceptor;
import dev.baton.ClaimQueue;
import dev.baton.ClaimedRow;
import dev.baton.Message;
import dev.baton.Outbox;
import dev.baton.Outcome;
import dev.baton.StateTable;
import dev.baton.Worker;
import dev.baton.testkit.DatabaseSuite;
import dev.baton.testservers.TestDatabase;
import dev.baton.testservers.TestDatabases;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Wake-ups in one JVM: a commit that makes a row claimable wakes the idle workers of its queue
 * after the commit, so a worker whose poll interval is 30 s handles the row within a few seconds; a rollback wakes
 * nobody; a burst of enqueues in one transaction costs one claim, not one per row. The bounds are far below the poll
 * interval and far above a wake-up's milliseconds: they test that the wake happens, not how fast.
 */
public abstract class AbstractWakeupCompatibilityTest extends DatabaseSuite {
    /** Far longer than any test here waits: a row handled within {@link #BOUND} was woken for, not polled. */
    private static final Duration POLL = Duration.ofSeconds(30);

    private static final long BOUND = 5_000;

    private TestDatabase db;
    private Baton baton;
    private JobsTable jobs;
    private StateTable<Payment> payments;
    private volatile ClaimQueue<Sync> queue;
    private final Map<Long, Long> handledAt = new ConcurrentHashMap<>();
    private final AtomicInteger claims = new AtomicInteger();

    @Override
    protected void setUp() {
        db = database();
        // counts every claim of the current test's queue, rows or none (a worker's own interceptors see handlers only)
        baton = Baton.builder(db.dataSource())
                .interceptor(new BatonInterceptor() {
                    @Override
                    public <S extends Enum<S>> List<ClaimedRow<S>> aroundClaim(ClaimCall<S> call) {
                        try {
                            return call.proceed();
                        } finally {
                            if (queue != null && call.queue().equals(queue.name())) {
                                claims.incrementAndGet();
                            }
                        }
                    }
                })
                .build();
    }

    @BeforeEach
    void table() {
        jobs = JobsTable.create(db, "wake", true);
        payments = baton.table(jobs.name()).state("payment_status", Payment.MACHINE);
        queue = jobs.queue(baton, Duration.ofSeconds(30));
        handledAt.clear();
        claims.set(0);
    }

    @AfterEach
    void drop() {
        jobs.drop();
    }

    /** A worker that polls every 30 s, started and idle (its first claim, empty, done). */
    private Worker idleWorker() throws InterruptedException {
        Worker w = baton.worker(queue)
                .pollInterval(POLL, POLL)
                .batchSize(100)
                .handle(row -> {
                    handledAt.putIfAbsent(((Number) row.id()).longValue(), System.nanoTime());
                    return Outcome.complete(Sync.COMPLETED);
                })
                .start();
        await(() -> claims.get() >= 1, "the worker's first claim");
        Thread.sleep(100); // into its 30 s wait
        return w;
    }

    private static void await(BooleanSupplier condition, String what) throws InterruptedException {
        long deadline = System.nanoTime() + BOUND * 1_000_000L;
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError(what + " did not happen within " + BOUND + " ms (the poll interval is 30 s)");
            }
            Thread.sleep(5);
        }
    }

    @Test
    void aTransitionIntoEligibilityWakesTheIdleWorkerAfterItsCommit() throws Exception {
        jobs.insert(1, 1, Payment.PENDING); // not eligible: the queue takes PAID rows
        try (Worker w = idleWorker()) {
            assertTrue(w.isRunning());
            long start = System.nanoTime();
            assertTrue(payments.transition(1L, Payment.PENDING, Payment.PAID)
                    .apply()
                    .applied());
            await(() -> handledAt.containsKey(1L), "handling the row made eligible");
            long ms = (handledAt.get(1L) - start) / 1_000_000;
            System.out.println("wake-up on " + db.name() + ": transition to handler in " + ms + " ms (poll 30 s)");
            await(() -> jobs.sync(1L) == Sync.COMPLETED, "the completion");
        }
    }

    @Test
    void aRolledBackEnqueueWakesNobodyAndACommittedOneDoes() throws Exception {
        jobs.insert(1, 1, Payment.PENDING);
        try (Worker w = idleWorker()) {
            assertTrue(w.isRunning());
            int before = claims.get();
            assertThrows(
                    IllegalStateException.class,
                    () -> baton.inTransaction(c -> {
                        assertTrue(payments.transition(1L, Payment.PENDING, Payment.PAID)
                                .apply()
                                .applied());
                        throw new IllegalStateException("roll back");
                    }));
            Thread.sleep(1000);
            assertEquals(before, claims.get(), "a rolled-back transition woke the worker");
            assertEquals(Payment.PENDING, payments.currentState(1L).orElseThrow());
            baton.inTransaction(
                    c -> payments.transition(1L, Payment.PENDING, Payment.PAID).apply());
            await(() -> handledAt.containsKey(1L), "handling the row the committed transaction made eligible");
            assertTrue(claims.get() > before);
        }
    }

    @Test
    void aBurstOfEnqueuesInOneTransactionCostsOneClaim() throws Exception {
        int rows = 20;
        jobs.insert(1, rows, Payment.PENDING);
        try (Worker w = idleWorker()) {
            assertTrue(w.isRunning());
            int before = claims.get();
            baton.inTransaction(c -> {
                for (long id = 1; id <= rows; id++) {
                    payments.transition(id, Payment.PENDING, Payment.PAID).apply();
                }
                return null;
            });
            await(() -> handledAt.size() == rows, "handling the burst");
            Thread.sleep(300); // wakes that came late would claim now
            int spent = claims.get() - before;
            System.out.println("burst of " + rows + " wake-ups on " + db.name() + ": " + spent + " claims");
            // one claim takes the burst (batch 100); a wake that arrives while it runs costs one more, and on a
            // database with notifications the notification of the commit one more: never one per row
            assertTrue(spent >= 1 && spent <= 3, "claims after a burst of " + rows + " wake-ups: " + spent);
        }
    }

    @Test
    void anOutboxEnqueueWakesItsIdleDispatcher() throws Exception {
        String table = TestDatabases.uniqueName("wakebox");
        assertTrue(baton.ownTables().createOutboxTable(table));
        try {
            Outbox outbox = baton.outbox(table);
            AtomicInteger delivered = new AtomicInteger();
            try (Worker d = outbox.dispatcher(m -> delivered.incrementAndGet())
                    .pollInterval(POLL, POLL)
                    .start()) {
                assertTrue(d.isRunning());
                Thread.sleep(300); // its first claim, empty, and into its 30 s wait
                long start = System.nanoTime();
                outbox.enqueue(Message.of("wake.test", "{}"));
                await(() -> delivered.get() == 1, "delivering the message enqueued");
                System.out.println("wake-up on " + db.name() + ": outbox enqueue to sink in "
                        + (System.nanoTime() - start) / 1_000_000 + " ms (poll 30 s)");
            }
        } finally {
            db.dropTableIfExists(table);
        }
    }

    @Test
    void aRequeueOfADeadRowWakesTheIdleWorker() throws Exception {
        jobs.insert(1, 1, Payment.PAID);
        db.execute("UPDATE " + jobs.name() + " SET sync_status = " + Sync.FAILED.code() + " WHERE id = 1");
        try (Worker w = idleWorker()) {
            assertTrue(w.isRunning());
            assertTrue(queue.deadLetters().requeue(1L).applied());
            await(() -> handledAt.containsKey(1L), "handling the requeued row");
        }
    }
}
