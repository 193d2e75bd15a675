package dev.baton.mysql;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.baton.Baton;
import dev.baton.ClaimQueue;
import dev.baton.ClaimedRow;
import dev.baton.DataAccessException;
import dev.baton.Decision;
import dev.baton.LeaseResult;
import dev.baton.Outcome;
import dev.baton.testkit.compat.JobsTable;
import dev.baton.testkit.compat.Payment;
import dev.baton.testkit.compat.Sync;
import dev.baton.testservers.TestDatabase;
import dev.baton.testservers.TestDatabases;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * Claimers on two different nodes of the Galera cluster ({@code GaleraCluster}): {@code SKIP LOCKED} locks are local
 * to a node, so both nodes may take one row; certification must abort one of the two at {@code COMMIT}, so that no row
 * is ever handed out twice.
 */
class MySqlGaleraClaimTest {
    private static final Duration LEASE = Duration.ofSeconds(60);

    @Test
    void claimersOnTwoNodesNeverShareARow() throws Exception {
        TestDatabase one = TestDatabases.mariadbGaleraNode(1);
        TestDatabase two = TestDatabases.mariadbGaleraNode(2);
        JobsTable jobs = JobsTable.create(one, "galera_claims", true);
        int rows = 300;
        int threads = 4;
        try {
            jobs.insert(1, rows, Payment.PAID);
            List<ClaimQueue<Sync>> queues = List.of(
                    jobs.queue(Baton.using(one.dataSource()), LEASE), jobs.queue(Baton.using(two.dataSource()), LEASE));
            Map<Long, Integer> claims = new ConcurrentHashMap<>();
            Map<Long, Integer> completions = new ConcurrentHashMap<>();
            AtomicInteger gaveUp = new AtomicInteger();
            ExecutorService pool = Executors.newFixedThreadPool(threads);
            try {
                List<Future<?>> futures = new ArrayList<>();
                for (int t = 0; t < threads; t++) {
                    ClaimQueue<Sync> q = queues.get(t % 2);
                    futures.add(pool.submit(() -> {
                        int empty = 0;
                        while (empty < 3 && gaveUp.get() < 50) {
                            List<ClaimedRow<Sync>> got;
                            try {
                                got = q.claim(5);
                            } catch (DataAccessException e) { // every retry lost certification: counted, tried again
                                gaveUp.incrementAndGet();
                                continue;
                            }
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
                            for (LeaseResult<Sync> r : q.applyAll(ds)) {
                                if (r.done()) {
                                    completions.merge(((Number) r.id()).longValue(), 1, Integer::sum);
                                }
                            }
                        }
                        return null;
                    }));
                }
                for (Future<?> f : futures) {
                    f.get(120, TimeUnit.SECONDS);
                }
            } finally {
                pool.shutdownNow();
            }
            List<Long> twice = claims.entrySet().stream()
                    .filter(e -> e.getValue() > 1)
                    .map(Map.Entry::getKey)
                    .toList();
            assertEquals(List.of(), twice, "rows claimed more than once");
            assertTrue(completions.values().stream().allMatch(n -> n == 1), "a row completed twice");
            assertEquals(rows, claims.size(), "every row claimed once (claims that gave up: " + gaveUp.get() + ")");
            assertEquals(rows, jobs.countBySync().getOrDefault(Sync.COMPLETED, 0));
        } finally {
            jobs.drop();
        }
    }
}
