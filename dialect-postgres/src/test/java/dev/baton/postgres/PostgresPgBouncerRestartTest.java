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
import dev.baton.StateTable;
import dev.baton.Worker;
import dev.baton.testkit.compat.JobsTable;
import dev.baton.testkit.compat.Payment;
import dev.baton.testkit.compat.Sync;
import dev.baton.testservers.PgBouncerServer;
import dev.baton.testservers.TestDatabase;
import dev.baton.testservers.TestServer;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * Failover suite, PgBouncer fault: a worker with the non-idempotent sink protocol runs through PgBouncer in
 * transaction mode in front of the local PostgreSQL; after 500 sends PgBouncer is killed ({@code kill -9}: every
 * client and server connection drops, the server rolls back what was in flight) and started again 0.5 s later on the
 * same port. Every row is sent exactly once and completed; nothing is dead.
 */
class PostgresPgBouncerRestartTest {
    private static final int ROWS = 2_000;
    private static final int KILL_AFTER_SENDS = 500;

    @Test
    void aPgBouncerKilledAndRestartedUnderLoadSendsEveryRowOnce() throws Exception {
        TestServer.POSTGRES_PGBOUNCER.get(); // skips or fails (CI without pgbouncer) as the PgBouncer suites do
        TestDatabase local = TestServer.POSTGRES_LOCAL.get();
        Matcher url = Pattern.compile("^jdbc:postgresql://([^:/?,]+)(?::(\\d+))?/([^?]+)")
                .matcher(local.jdbcUrl());
        assertTrue(url.find(), local.jdbcUrl());
        int port = url.group(2) == null ? 5432 : Integer.parseInt(url.group(2));
        JobsTable jobs = JobsTable.create(local, "fo_bouncer", true);
        jobs.insert(1, ROWS, Payment.PAID);
        Map<Long, AtomicInteger> sends = new ConcurrentHashMap<>();
        AtomicInteger sent = new AtomicInteger();
        AtomicLong killed = new AtomicLong();
        AtomicLong firstClaimAfter = new AtomicLong();
        try (PgBouncerServer bouncer = PgBouncerServer.start(
                        PgBouncerServer.binary().orElseThrow(), url.group(1), port, local.user());
                HikariDataSource pool = new HikariDataSource()) {
            pool.setJdbcUrl(bouncer.jdbcUrl(url.group(3)) + "&connectTimeout=2");
            pool.setUsername(local.user());
            pool.setMaximumPoolSize(12);
            Baton baton = Baton.builder(pool)
                    .listener(new BatonListener() {
                        @Override
                        public void onClaim(String queue, int count) {
                            if (killed.get() != 0) {
                                firstClaimAfter.compareAndSet(0, System.nanoTime());
                            }
                        }
                    })
                    .build();
            StateTable<Payment> payments = baton.table(jobs.name()).state("payment_status", Payment.MACHINE);
            ClaimQueue<Sync> queue = baton.<Sync>queue("bouncer-" + jobs.name())
                    .table(jobs.name())
                    .claim("sync_status", Sync.MACHINE, Sync.PENDING, Sync.PROCESSING)
                    .eligibleWhen(payments.is(Payment.PAID), Condition.isNull("third_party_guid"))
                    .deadState(Sync.FAILED)
                    .nonIdempotentSink(Sync.SENDING, Sync.UNKNOWN)
                    .retry(RetryPolicy.fixed(Duration.ofMillis(100)).maxAttempts(1_000))
                    .lease(Duration.ofSeconds(3))
                    .build();
            long started = System.nanoTime();
            Worker worker = baton.worker(queue)
                    .batchSize(50)
                    .concurrency(8)
                    .pollInterval(Duration.ofMillis(10), Duration.ofMillis(100))
                    .sweepInterval(Duration.ofMillis(500))
                    .handle(row -> {
                        sends.computeIfAbsent(((Number) row.id()).longValue(), k -> new AtomicInteger())
                                .incrementAndGet();
                        sent.incrementAndGet();
                        return Outcome.complete(Sync.COMPLETED).set("third_party_guid", "g" + row.token());
                    })
                    .reconcile(id -> sends.containsKey(((Number) id).longValue())
                            ? Outcome.complete(Sync.COMPLETED)
                            : Outcome.release())
                    .start();
            try {
                await(() -> sent.get() >= KILL_AFTER_SENDS, 60, "the first sends");
                long kill = System.nanoTime();
                killed.set(kill);
                bouncer.killAndRestart(Duration.ofMillis(500));
                await(
                        () -> jobs.countBySync().getOrDefault(Sync.COMPLETED, 0) == ROWS,
                        120,
                        "every row completed: " + jobs.countBySync());
                int twice =
                        (int) sends.values().stream().filter(n -> n.get() > 1).count();
                System.out.println(
                        "FAILOVER FIGURES pgbouncer kill -9 + restart: rows " + ROWS + ", sends " + sent.get()
                                + ", rows sent twice " + twice + ", kill -> first claim "
                                + (firstClaimAfter.get() == 0 ? -1 : (firstClaimAfter.get() - kill) / 1e9) + " s, run "
                                + (System.nanoTime() - started) / 1e9 + " s");
                assertEquals(0, twice, "rows sent twice");
                assertEquals(ROWS, sends.size());
            } finally {
                worker.close();
            }
        } finally {
            jobs.drop();
        }
    }

    private static void await(java.util.function.BooleanSupplier done, int seconds, String what)
            throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(seconds).toNanos();
        while (!done.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("not within " + seconds + " s: " + what);
            }
            Thread.sleep(50);
        }
    }
}
