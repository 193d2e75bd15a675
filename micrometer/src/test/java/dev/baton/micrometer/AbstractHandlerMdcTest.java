package dev.baton.micrometer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ch.qos.logback.classic.util.LogbackMDCAdapter;
import dev.baton.Baton;
import dev.baton.BatonInterceptor;
import dev.baton.ClaimQueue;
import dev.baton.ClaimedRow;
import dev.baton.Outcome;
import dev.baton.Worker;
import dev.baton.testkit.DatabaseSuite;
import dev.baton.testkit.compat.JobsTable;
import dev.baton.testkit.compat.Payment;
import dev.baton.testkit.compat.Sync;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.slf4j.MDC;

/**
 * Baton's MDC keys around every handler call: set on the handler's thread while the handler runs, and afterwards
 * removed (or given back the host's earlier value) so that a pooled thread carries no row's keys into other work.
 */
abstract class AbstractHandlerMdcTest extends DatabaseSuite {

    @Test
    void handlersSeeTheirRowInTheMdcAndThePoolThreadIsCleanAfter() throws Exception {
        assertTrue(MDC.getMDCAdapter() instanceof LogbackMDCAdapter, "a logger whose MDC works");
        JobsTable jobs = JobsTable.create(database(), "mdc", true);
        ExecutorService pool = Executors.newSingleThreadExecutor();
        try {
            Baton baton = Baton.using(database().dataSource());
            ClaimQueue<Sync> q = jobs.queue(baton, Duration.ofMinutes(1));
            jobs.insert(1, 3, Payment.PAID);
            // the host's own value of one key on the pool thread, which Baton must give back
            pool.submit(() -> MDC.put(Worker.MDC_QUEUE, "host")).get();
            Map<Long, Map<String, String>> seen = new ConcurrentHashMap<>();
            Worker worker = baton.worker(q)
                    .executor(pool)
                    .pollInterval(Duration.ofMillis(20), Duration.ofMillis(100))
                    .handle(row -> {
                        Map<String, String> mdc = new HashMap<>();
                        for (String k :
                                List.of(Worker.MDC_QUEUE, Worker.MDC_ID, Worker.MDC_ATTEMPT, Worker.MDC_TOKEN)) {
                            mdc.put(k, MDC.get(k));
                        }
                        mdc.put("token", Long.toString(row.token()));
                        seen.put(((Number) row.id()).longValue(), mdc);
                        return Outcome.complete(Sync.COMPLETED);
                    })
                    .start();
            try {
                long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
                while (seen.size() < 3 || jobs.countBySync().getOrDefault(Sync.COMPLETED, 0) < 3) {
                    assertTrue(System.nanoTime() < end, "3 rows handled within 60 s, saw " + seen);
                    Thread.sleep(20);
                }
            } finally {
                worker.close();
            }
            for (long id = 1; id <= 3; id++) {
                Map<String, String> mdc = seen.get(id);
                assertEquals(q.name(), mdc.get(Worker.MDC_QUEUE));
                assertEquals(Long.toString(id), mdc.get(Worker.MDC_ID));
                assertEquals("1", mdc.get(Worker.MDC_ATTEMPT));
                assertEquals(mdc.get("token"), mdc.get(Worker.MDC_TOKEN));
            }
            Map<String, String> after = pool.submit(() -> {
                        Map<String, String> m = MDC.getCopyOfContextMap();
                        return m == null ? Map.<String, String>of() : m;
                    })
                    .get();
            assertEquals("host", after.get(Worker.MDC_QUEUE));
            assertNull(after.get(Worker.MDC_ID));
            assertNull(after.get(Worker.MDC_ATTEMPT));
            assertNull(after.get(Worker.MDC_TOKEN));
        } finally {
            pool.shutdownNow();
            jobs.drop();
        }
    }

    /** Records the order of calls, and whether the MDC held the row while it ran. */
    private record Recording(String name, List<String> calls) implements BatonInterceptor {
        @Override
        public <S extends Enum<S>> List<ClaimedRow<S>> aroundClaim(ClaimCall<S> call) {
            List<ClaimedRow<S>> rows = call.proceed();
            if (!rows.isEmpty()) {
                calls.add(name + " claimed " + rows.size() + " from " + call.queue());
            }
            return rows;
        }

        @Override
        public <S extends Enum<S>> Outcome<S> aroundHandle(HandlerCall<S> call) throws Exception {
            calls.add(
                    name + " > " + MDC.get(Worker.MDC_ID) + " " + call.message().isPresent());
            try {
                return call.proceed();
            } finally {
                calls.add(name + " <");
            }
        }
    }

    @Test
    void interceptorsRunInOrderInsideTheMdcAndAroundClaims() throws Exception {
        JobsTable jobs = JobsTable.create(database(), "chain", true);
        try {
            List<String> calls = new CopyOnWriteArrayList<>();
            Baton baton = Baton.builder(database().dataSource())
                    .interceptor(new Recording("outer", calls))
                    .build();
            ClaimQueue<Sync> q = jobs.queue(baton, Duration.ofMinutes(1));
            jobs.insert(7, 1, Payment.PAID);
            Worker worker = baton.worker(q)
                    .intercept(new Recording("inner", calls))
                    .pollInterval(Duration.ofMillis(20), Duration.ofMillis(100))
                    .handle(row -> {
                        calls.add("handler");
                        return Outcome.complete(Sync.COMPLETED);
                    })
                    .start();
            try {
                long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
                while (jobs.countBySync().getOrDefault(Sync.COMPLETED, 0) < 1) {
                    assertTrue(System.nanoTime() < end, "row handled within 60 s: " + calls);
                    Thread.sleep(20);
                }
            } finally {
                worker.close();
            }
            assertEquals(
                    List.of(
                            "outer claimed 1 from " + q.name(),
                            "outer > 7 false",
                            "inner > 7 false",
                            "handler",
                            "inner <",
                            "outer <"),
                    new ArrayList<>(calls));
        } finally {
            jobs.drop();
        }
    }
}
