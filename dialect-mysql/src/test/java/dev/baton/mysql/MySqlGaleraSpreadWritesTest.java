package dev.baton.mysql;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.baton.Baton;
import dev.baton.BatonListener;
import dev.baton.ClaimQueue;
import dev.baton.ClaimedRow;
import dev.baton.DataAccessException;
import dev.baton.Decision;
import dev.baton.LeaseResult;
import dev.baton.Outcome;
import dev.baton.StateMachine;
import dev.baton.StateTable;
import dev.baton.TransitionResult;
import dev.baton.testkit.compat.JobsTable;
import dev.baton.testkit.compat.Payment;
import dev.baton.testkit.compat.Sync;
import dev.baton.testservers.TestDatabase;
import dev.baton.testservers.TestDatabases;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * Claimers and guarded transitions on all three nodes of the Galera cluster at once, each thread pinned to one node,
 * all on the same rows: writes on different nodes conflict at certification (error 1213, often at {@code COMMIT}),
 * and Baton must retry each lost unit of work until it either wins or finds the row taken or moved. Asserts exactly
 * once (every row claimed once and completed once; every step of every row applied once, by the thread whose value
 * the row keeps), that no retry budget ran out, and that conflicts happened.
 */
class MySqlGaleraSpreadWritesTest {
    private static final Duration LEASE = Duration.ofSeconds(60);
    private static final int NODES = 3;
    private static final int THREADS_PER_NODE = 4;

    /** A chain S0 → S1 → … → S5: each step has one source, so every step of a row is applied exactly once. */
    enum Step {
        S0,
        S1,
        S2,
        S3,
        S4,
        S5
    }

    private static final StateMachine<Step> CHAIN = StateMachine.of(Step.class)
            .storedAs(Step::ordinal)
            .allow(Step.S0, Step.S1)
            .allow(Step.S1, Step.S2)
            .allow(Step.S2, Step.S3)
            .allow(Step.S3, Step.S4)
            .allow(Step.S4, Step.S5)
            .terminal(Step.S5)
            .build();

    /** Retries Baton ran, and those whose cause was a lost write conflict (1213), over all nodes. */
    private final AtomicInteger retries = new AtomicInteger();

    private final AtomicInteger conflicts = new AtomicInteger();

    /** The highest attempt that failed and was retried: over 5, the default budget of other errors (6) ran out. */
    private final AtomicInteger deepest = new AtomicInteger();

    @Test
    void claimersAndTransitionsOnAllNodesApplyEverythingExactlyOnce() throws Exception {
        List<Baton> batons = new ArrayList<>();
        for (int node = 1; node <= NODES; node++) {
            batons.add(counting(TestDatabases.mariadbGaleraNode(node)));
        }
        TestDatabase one = TestDatabases.mariadbGaleraNode(1);
        JobsTable jobs = JobsTable.create(one, "g2_spread_jobs", true);
        String steps = TestDatabases.uniqueName("g2_spread_steps");
        one.execute("CREATE TABLE " + steps + " (id BIGINT NOT NULL PRIMARY KEY, step INT NOT NULL,"
                + " applied_by VARCHAR(20) NULL)");
        int rows = 2000;
        int stepRows = 40;
        try {
            jobs.insert(1, rows, Payment.PAID);
            StringBuilder insert = new StringBuilder("INSERT INTO " + steps + " (id, step) VALUES ");
            for (long id = 1; id <= stepRows; id++) {
                insert.append(id > 1 ? ", " : "").append('(').append(id).append(", 0)");
            }
            one.execute(insert.toString());

            Map<Long, Integer> claims = new ConcurrentHashMap<>();
            Map<Long, Integer> completions = new ConcurrentHashMap<>();
            Map<String, Integer> applied = new ConcurrentHashMap<>(); // "id/step" → Applied results
            Map<Long, String> lastStepBy = new ConcurrentHashMap<>(); // id → thread that applied S5
            List<Throwable> gaveUp = Collections.synchronizedList(new ArrayList<>());
            int threads = NODES * THREADS_PER_NODE;
            ExecutorService pool = Executors.newFixedThreadPool(2 * threads);
            CountDownLatch go = new CountDownLatch(1);
            long started = System.nanoTime();
            try {
                List<Future<?>> futures = new ArrayList<>();
                for (int t = 0; t < threads; t++) {
                    Baton baton = batons.get(t % NODES);
                    ClaimQueue<Sync> queue = jobs.queue(baton, LEASE);
                    StateTable<Step> table = baton.table(steps).state("step", CHAIN);
                    String tag = "n" + (t % NODES + 1) + "t" + t;
                    futures.add(pool.submit(() -> {
                        go.await();
                        claimUntilEmpty(queue, claims, completions, gaveUp);
                        return null;
                    }));
                    futures.add(pool.submit(() -> {
                        go.await();
                        stepAll(table, stepRows, tag, applied, lastStepBy, gaveUp);
                        return null;
                    }));
                }
                go.countDown();
                for (Future<?> f : futures) {
                    f.get(120, TimeUnit.SECONDS);
                }
            } finally {
                pool.shutdownNow();
            }
            long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
            System.out.printf(
                    "Galera spread writes: %d rows claimed and %d x %d steps by %d threads on %d nodes in %d ms;"
                            + " %d retries, %d of them lost write conflicts (1213), deepest failed attempt %d;"
                            + " %d gave up%n",
                    rows,
                    stepRows,
                    Step.S5.ordinal(),
                    2 * threads,
                    NODES,
                    millis,
                    retries.get(),
                    conflicts.get(),
                    deepest.get(),
                    gaveUp.size());

            assertEquals(List.of(), gaveUp, "no unit of work ran out of retries");
            assertEquals(rows, claims.size(), "every row claimed");
            assertTrue(claims.values().stream().allMatch(n -> n == 1), "no row claimed twice: " + claims);
            assertEquals(rows, completions.size(), "every row completed");
            assertTrue(completions.values().stream().allMatch(n -> n == 1), "no row completed twice");
            assertEquals(Map.of(Sync.COMPLETED, rows), jobs.countBySync());

            assertEquals(stepRows * Step.S5.ordinal(), applied.size(), "every step of every row applied: " + applied);
            assertTrue(applied.values().stream().allMatch(n -> n == 1), "no step applied twice: " + applied);
            Map<Long, String> stored = new ConcurrentHashMap<>();
            for (TestDatabase node :
                    List.of(one, TestDatabases.mariadbGaleraNode(2), TestDatabases.mariadbGaleraNode(3))) {
                try (var c = node.connect();
                        var s = c.createStatement();
                        var rs = s.executeQuery("SELECT id, step, applied_by FROM " + steps)) {
                    while (rs.next()) {
                        assertEquals(Step.S5.ordinal(), rs.getInt(2), "row " + rs.getLong(1) + " on " + node.name());
                        stored.put(rs.getLong(1), rs.getString(3));
                    }
                }
                assertEquals(lastStepBy, stored, "each row keeps the value of the transition Baton reported applied");
            }
            assertTrue(conflicts.get() > 0, "the writes conflicted at certification (1213) at least once");
        } finally {
            jobs.drop();
            one.dropTableIfExists(steps);
        }
    }

    /** Claims batches of 10 and completes them until three claims in a row come back empty. */
    private static void claimUntilEmpty(
            ClaimQueue<Sync> queue, Map<Long, Integer> claims, Map<Long, Integer> completions, List<Throwable> gaveUp) {
        int empty = 0;
        while (empty < 3 && gaveUp.isEmpty()) {
            List<ClaimedRow<Sync>> got;
            List<LeaseResult<Sync>> done;
            try {
                got = queue.claim(10);
                if (got.isEmpty()) {
                    empty++;
                    continue;
                }
                empty = 0;
                List<Decision<Sync>> ds = new ArrayList<>();
                for (ClaimedRow<Sync> r : got) {
                    claims.merge(((Number) r.id()).longValue(), 1, Integer::sum);
                    ds.add(new Decision<>(r, Outcome.<Sync>complete(Sync.COMPLETED)));
                }
                done = queue.applyAll(ds);
            } catch (DataAccessException e) {
                gaveUp.add(e);
                return;
            }
            for (LeaseResult<Sync> r : done) {
                if (r.done()) {
                    completions.merge(((Number) r.id()).longValue(), 1, Integer::sum);
                }
            }
        }
    }

    /** Moves every row up the chain, one step at a time, from whatever step the row is found at. */
    private static void stepAll(
            StateTable<Step> table,
            int rows,
            String tag,
            Map<String, Integer> applied,
            Map<Long, String> lastStepBy,
            List<Throwable> gaveUp) {
        List<Long> order = new ArrayList<>();
        for (long id = 1; id <= rows; id++) {
            order.add(id);
        }
        Collections.shuffle(order);
        for (long id : order) {
            Step current = Step.S0;
            while (current != Step.S5 && gaveUp.isEmpty()) {
                Step target = Step.values()[current.ordinal() + 1];
                TransitionResult<Step> r;
                try {
                    r = table.transition(id, target).set("applied_by", tag).apply();
                } catch (DataAccessException e) {
                    gaveUp.add(e);
                    return;
                }
                if (r instanceof TransitionResult.Applied<Step>) {
                    applied.merge(id + "/" + target, 1, Integer::sum);
                    if (target == Step.S5) {
                        lastStepBy.put(id, tag);
                    }
                    current = target;
                } else if (r instanceof TransitionResult.Rejected<Step> rejected) {
                    current = rejected.current(); // another thread moved it on
                } else if (r instanceof TransitionResult.AlreadyInTarget<Step>) {
                    current = target;
                } else {
                    gaveUp.add(new AssertionError("unexpected result " + r));
                    return;
                }
            }
        }
    }

    /** A {@code Baton} on one node that counts its retries and, among them, the lost write conflicts (1213). */
    private Baton counting(TestDatabase node) {
        return Baton.builder(node.dataSource())
                .listener(new BatonListener() {
                    @Override
                    public void onTransientRetry(String operation, int attempt, SQLException cause) {
                        retries.incrementAndGet();
                        deepest.accumulateAndGet(attempt, Math::max);
                        for (Throwable t = cause; t != null; t = t.getCause()) {
                            if (t instanceof SQLException s && s.getErrorCode() == 1213) {
                                conflicts.incrementAndGet();
                                return;
                            }
                        }
                    }
                })
                .build();
    }
}
