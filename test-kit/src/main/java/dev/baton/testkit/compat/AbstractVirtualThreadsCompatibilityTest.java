package dev.baton.testkit.compat;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.baton.Baton;
import dev.baton.BatonInterceptor;
import dev.baton.ClaimQueue;
import dev.baton.ClaimedRow;
import dev.baton.Outcome;
import dev.baton.Worker;
import dev.baton.testkit.DatabaseSuite;
import dev.baton.testservers.TestDatabase;
import java.lang.reflect.Method;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * {@link Worker.Builder#virtualThreads()} against a database (JDK 21 or later; skipped with the reason below): every
 * handler runs on a virtual thread named after the worker, the claims on a platform thread, no more than {@code
 * concurrency} handlers at once, and every row is handled once and completed, with an idempotent sink and with a
 * non-idempotent one (whose mark before the send runs on the handler's virtual thread). Tables are {@code vt_...}.
 */
@Tag("virtual-threads") // .ci/jdk25 selects it by this tag
public abstract class AbstractVirtualThreadsCompatibilityTest extends DatabaseSuite {
    private static final int ROWS = 300;
    private static final int CONCURRENCY = 16;
    private static final String NAME = "vt-worker";

    private TestDatabase db;
    private Baton baton;
    private JobsTable jobs;
    private final Map<Long, AtomicInteger> handled = new ConcurrentHashMap<>();
    private final Set<String> handlerThreads = ConcurrentHashMap.newKeySet();
    private final Set<Thread> claimThreads = ConcurrentHashMap.newKeySet();
    private final AtomicInteger running = new AtomicInteger();
    private final AtomicInteger mostRunning = new AtomicInteger();
    private final AtomicInteger platformHandlers = new AtomicInteger();

    @Override
    protected void setUp() {
        db = database();
        baton = Baton.builder(db.dataSource())
                .interceptor(new BatonInterceptor() {
                    @Override
                    public <S extends Enum<S>> List<ClaimedRow<S>> aroundClaim(ClaimCall<S> call) {
                        claimThreads.add(Thread.currentThread());
                        return call.proceed();
                    }
                })
                .build();
    }

    @BeforeEach
    void table() {
        assumeTrue(
                Runtime.version().feature() >= 21,
                "virtual threads need JDK 21 or later; this JVM is " + Runtime.version());
        jobs = JobsTable.create(db, "vt_jobs", true);
        jobs.insert(1, ROWS, Payment.PAID);
        handled.clear();
        handlerThreads.clear();
        claimThreads.clear();
        running.set(0);
        mostRunning.set(0);
        platformHandlers.set(0);
    }

    @AfterEach
    void drop() {
        if (jobs != null) {
            jobs.drop();
        }
    }

    private static boolean isVirtual(Thread t) {
        try {
            Method m = Thread.class.getMethod("isVirtual"); // JDK 21; this module is compiled for 17
            return (Boolean) m.invoke(t);
        } catch (ReflectiveOperationException e) {
            throw new AssertionError("Thread.isVirtual() on " + Runtime.version(), e);
        }
    }

    private Outcome<Sync> handle(ClaimedRow<Sync> row) throws InterruptedException {
        int now = running.incrementAndGet();
        mostRunning.accumulateAndGet(now, Math::max);
        try {
            Thread t = Thread.currentThread();
            if (!isVirtual(t)) {
                platformHandlers.incrementAndGet();
            }
            handlerThreads.add(t.getName());
            handled.computeIfAbsent(((Number) row.id()).longValue(), id -> new AtomicInteger())
                    .incrementAndGet();
            Thread.sleep(5); // a blocking call: the virtual thread unmounts, others overlap it
            return Outcome.complete(Sync.COMPLETED);
        } finally {
            running.decrementAndGet();
        }
    }

    private void drain(ClaimQueue<Sync> queue) throws InterruptedException {
        try (Worker w = baton.worker(queue)
                .virtualThreads()
                .concurrency(CONCURRENCY)
                .batchSize(10)
                .pollInterval(Duration.ofMillis(20), Duration.ofMillis(200))
                .name(NAME)
                .handle(this::handle)
                .start()) {
            long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
            while (jobs.countBySync().getOrDefault(Sync.COMPLETED, 0) < ROWS) {
                if (System.nanoTime() > deadline) {
                    throw new AssertionError("not every row completed within 60 s: " + jobs.countBySync());
                }
                Thread.sleep(20);
            }
            assertTrue(w.isRunning());
        }
        assertEquals(Map.of(Sync.COMPLETED, ROWS), jobs.countBySync(), "every row completed");
        assertEquals(ROWS, handled.size(), "every row handled");
        handled.forEach((id, n) -> assertEquals(1, n.get(), "row " + id + " handled " + n.get() + " times"));
        assertEquals(0, platformHandlers.get(), "handlers that ran on a platform thread");
        assertTrue(
                handlerThreads.stream().allMatch(n -> n.startsWith(NAME + "-handler-")),
                "handler threads are named after the worker: " + handlerThreads);
        assertFalse(claimThreads.isEmpty());
        assertTrue(
                claimThreads.stream().noneMatch(AbstractVirtualThreadsCompatibilityTest::isVirtual),
                "claims run on the poller, a platform thread: " + claimThreads);
        assertTrue(mostRunning.get() <= CONCURRENCY, "handlers at once: " + mostRunning.get());
        assertTrue(mostRunning.get() > 1, "handlers overlapped: at most " + mostRunning.get() + " at once");
        System.out.println("virtual threads on " + db.name() + ": " + ROWS + " rows, " + handlerThreads.size()
                + " virtual threads, at most " + mostRunning.get() + " handlers at once (concurrency "
                + CONCURRENCY + ")");
    }

    @Test
    void handlersRunOnVirtualThreadsAndEveryRowIsHandledOnce() throws Exception {
        drain(jobs.queue(baton, Duration.ofSeconds(30)));
    }

    @Test
    void aNonIdempotentSinkMarksEachSendFromItsVirtualThreadAndHandlesEveryRowOnce() throws Exception {
        drain(jobs.sendingQueue(baton, Duration.ofSeconds(30)));
    }
}
