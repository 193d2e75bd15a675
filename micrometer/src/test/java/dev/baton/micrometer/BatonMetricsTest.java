package dev.baton.micrometer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.baton.Baton;
import dev.baton.ClaimQueue;
import dev.baton.ClaimedRow;
import dev.baton.EnqueueResult;
import dev.baton.LeaseResult;
import dev.baton.Message;
import dev.baton.Outbox;
import dev.baton.Outcome;
import dev.baton.RetryPolicy;
import dev.baton.SendDurability;
import dev.baton.SendNotDurableException;
import dev.baton.StateTable;
import dev.baton.Worker;
import dev.baton.testkit.DatabaseSuite;
import dev.baton.testkit.compat.JobsTable;
import dev.baton.testkit.compat.Payment;
import dev.baton.testkit.compat.Sync;
import dev.baton.testservers.TestDatabase;
import dev.baton.testservers.TestDatabases;
import dev.baton.testservers.TestServer;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.search.Search;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.sql.Connection;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.EnumSource;

/** The meters after a known workload, counted exactly, on each PostgreSQL and MariaDB. */
@ParameterizedClass(name = "{0}")
@EnumSource(
        value = TestServer.class,
        names = {"POSTGRES_LOCAL", "POSTGRES_EMBEDDED", "MARIADB_LOCAL", "MARIADB_EMBEDDED"})
class BatonMetricsTest {
    @Parameter
    TestServer server;

    @Nested
    class Meters extends DatabaseSuite {
        private TestDatabase db;
        private SimpleMeterRegistry registry;
        private Baton baton;
        private JobsTable jobs;

        @Override
        protected void setUp() {
            db = database();
        }

        @BeforeEach
        void fresh() {
            registry = new SimpleMeterRegistry();
            baton = Baton.builder(db.dataSource())
                    .listener(new BatonMetrics(registry, Duration.ZERO))
                    .build();
            jobs = JobsTable.create(db, "metrics", true);
        }

        @AfterEach
        void drop() {
            jobs.drop();
        }

        private ClaimQueue<Sync> queue(int maxAttempts, Duration lease) {
            StateTable<Payment> payments = baton.table(jobs.name()).state("payment_status", Payment.MACHINE);
            return baton.<Sync>queue("q-" + jobs.name())
                    .table(jobs.name())
                    .claim("sync_status", Sync.MACHINE, Sync.PENDING, Sync.PROCESSING)
                    .eligibleWhen(payments.is(Payment.PAID))
                    .deadState(Sync.FAILED)
                    .retry(RetryPolicy.fixed(Duration.ZERO).maxAttempts(maxAttempts))
                    .lease(lease)
                    .ageColumn("created_at")
                    .build();
        }

        private double count(String name, String... tags) {
            return Search.in(registry).name(name).tags(tags).counters().stream()
                    .mapToDouble(Counter::count)
                    .sum();
        }

        private long timed(String name, String... tags) {
            Timer t = Search.in(registry).name(name).tags(tags).timer();
            return t == null ? 0 : t.count();
        }

        @Test
        void aWorkerWorkloadIsCountedExactly() throws Exception {
            ClaimQueue<Sync> q = queue(2, Duration.ofMinutes(1));
            String name = q.name();
            jobs.insert(1, 10, Payment.PAID);
            // 1-5 complete; 6-7 retry once then complete; 8 always retries (dead after attempt 2); 9 asks for the dead
            // state; 10 throws every time (a retry, then dead)
            Worker worker = baton.worker(q)
                    .batchSize(4)
                    .pollInterval(Duration.ofMillis(20), Duration.ofMillis(100))
                    .handle(row -> {
                        long id = ((Number) row.id()).longValue();
                        if (id <= 5 || (id <= 7 && row.attempt() == 2)) {
                            return Outcome.complete(Sync.COMPLETED);
                        } else if (id <= 8) {
                            return Outcome.retry("not yet");
                        } else if (id == 9) {
                            return Outcome.deadLetter("poison");
                        }
                        throw new IllegalStateException("handler bug");
                    })
                    .start();
            try {
                await(() -> Map.of(Sync.COMPLETED, 7, Sync.FAILED, 3).equals(jobs.countBySync()));
            } finally {
                worker.close();
            }
            assertEquals(14, count(BatonMetrics.ROWS_CLAIMED, "queue", name));
            double claims = count(BatonMetrics.CLAIMS, "queue", name);
            assertTrue(claims >= 4 && claims <= 14, "claims " + claims);
            assertEquals(7, count(BatonMetrics.COMPLETIONS, "queue", name));
            assertEquals(4, count(BatonMetrics.RETRIES, "queue", name));
            assertEquals(2, count(BatonMetrics.DEAD_LETTERS, "queue", name, "reason", "retries_exhausted"));
            assertEquals(1, count(BatonMetrics.DEAD_LETTERS, "queue", name, "reason", "handler"));
            assertEquals(3, count(BatonMetrics.DEAD_LETTERS, "queue", name));
            assertEquals(7, timed(BatonMetrics.HANDLER, "queue", name, "outcome", "complete"));
            assertEquals(4, timed(BatonMetrics.HANDLER, "queue", name, "outcome", "retry"));
            assertEquals(1, timed(BatonMetrics.HANDLER, "queue", name, "outcome", "dead_letter"));
            assertEquals(2, timed(BatonMetrics.HANDLER, "queue", name, "outcome", "error"));
            assertEquals(0, count(BatonMetrics.LEASES_LOST, "queue", name));
            assertEquals(0, count(BatonMetrics.FENCED_REFUSED, "queue", name));
            assertEquals(0, count(BatonMetrics.RELEASES, "queue", name));
        }

        @Test
        void refusedFencedWritesLostLeasesAndExpiredLastAttempts() throws Exception {
            ClaimQueue<Sync> q = queue(1, Duration.ofSeconds(1));
            String name = q.name();
            jobs.insert(1, 2, Payment.PAID);
            ClaimedRow<Sync> first = q.claim(1).get(0);
            assertInstanceOf(LeaseResult.Done.class, q.release(first));
            assertInstanceOf(LeaseResult.LeaseLost.class, q.complete(first, Sync.COMPLETED));
            assertInstanceOf(LeaseResult.LeaseLost.class, q.heartbeat(first));
            assertEquals(1, count(BatonMetrics.RELEASES, "queue", name));
            assertEquals(1, count(BatonMetrics.FENCED_REFUSED, "queue", name, "write", "outcome"));
            assertEquals(1, count(BatonMetrics.FENCED_REFUSED, "queue", name, "write", "heartbeat"));
            assertEquals(1, count(BatonMetrics.LEASES_LOST, "queue", name));
            assertEquals(0, count(BatonMetrics.COMPLETIONS, "queue", name));

            // both rows claimed on their last attempt, then left to expire: the sweep dead-letters them
            assertEquals(2, q.claim(2).size());
            Thread.sleep(1500);
            assertEquals(2, q.reclaimExpired());
            assertEquals(2, count(BatonMetrics.DEAD_LETTERS, "queue", name, "reason", "lease_expired"));
            assertEquals(0, count(BatonMetrics.RECLAIMED, "queue", name));
            assertEquals(3, count(BatonMetrics.ROWS_CLAIMED, "queue", name));
            assertEquals(2, count(BatonMetrics.CLAIMS, "queue", name));
        }

        @Test
        void transitionsByResult() {
            jobs.insert(1, 3, Payment.PENDING);
            StateTable<Payment> payments = baton.table(jobs.name()).state("payment_status", Payment.MACHINE);
            String t = jobs.name();
            payments.transition(1L, Payment.PENDING, Payment.PAID).apply();
            payments.transition(2L, Payment.PENDING, Payment.PAID).apply();
            payments.transition(1L, Payment.PENDING, Payment.PAID).apply(); // a duplicate callback
            payments.transition(2L, Payment.PENDING, Payment.FAILED).apply(); // too late
            payments.transition(99L, Payment.PENDING, Payment.PAID).apply();
            assertEquals(2, count(BatonMetrics.TRANSITIONS, "table", t, "result", "applied"));
            assertEquals(1, count(BatonMetrics.TRANSITIONS, "table", t, "result", "already_in_target"));
            assertEquals(1, count(BatonMetrics.TRANSITIONS, "table", t, "result", "rejected"));
            assertEquals(1, count(BatonMetrics.TRANSITIONS, "table", t, "result", "not_found"));
            assertEquals(5, count(BatonMetrics.TRANSITIONS, "table", t));
        }

        @Test
        void outboxEnqueuedDispatchedAndLag() throws Exception {
            String table = TestDatabases.uniqueName("mbox");
            assertTrue(baton.ownTables().createOutboxTable(table));
            try {
                Outbox outbox = baton.outbox(table);
                jobs.insert(1, 1, Payment.PENDING);
                StateTable<Payment> payments = baton.table(jobs.name()).state("payment_status", Payment.MACHINE);
                outbox.enqueue(Message.of("t", "a").dedupKey("a"));
                outbox.enqueue(Message.of("t", "b"));
                assertInstanceOf(
                        EnqueueResult.Duplicate.class,
                        outbox.enqueue(Message.of("t", "a2").dedupKey("a")));
                outbox.transitionAndEnqueue(
                        payments.transition(1L, Payment.PENDING, Payment.PAID), Message.of("t", "paid"));
                outbox.transitionAndEnqueue( // AlreadyInTarget: nothing enqueued
                        payments.transition(1L, Payment.PENDING, Payment.PAID), Message.of("t", "paid again"));
                try (Connection c = db.connect()) { // the caller's connection: stored, but not counted as enqueued
                    outbox.enqueue(c, Message.of("t", "mine"));
                }
                assertEquals(3, count(BatonMetrics.ENQUEUED, "outbox", table));

                Worker dispatcher = outbox.dispatcher(m -> {})
                        .pollInterval(Duration.ofMillis(20), Duration.ofMillis(100))
                        .start();
                try {
                    await(() -> count(
                                    BatonMetrics.COMPLETIONS,
                                    "queue",
                                    outbox.queue().name())
                            == 4);
                } finally {
                    dispatcher.close();
                }
                assertEquals(4, count(BatonMetrics.DISPATCHED, "outbox", table));
                Timer lag = Search.in(registry)
                        .name(BatonMetrics.LAG)
                        .tags("outbox", table)
                        .timer();
                assertEquals(4, lag.count());
                // every message was created in this test: its lag is below a minute unless the clocks disagree
                assertTrue(lag.max(TimeUnit.SECONDS) < 60, "lag " + lag.max(TimeUnit.SECONDS) + " s");
                assertEquals(
                        4, timed(BatonMetrics.HANDLER, "queue", outbox.queue().name(), "outcome", "complete"));
                assertEquals(3, count(BatonMetrics.ENQUEUED, "outbox", table));
            } finally {
                db.dropTableIfExists(table);
            }
        }

        @Test
        void gaugesQueryTheDatabaseAtMostOncePerInterval() {
            ClaimQueue<Sync> q = queue(3, Duration.ofMinutes(1));
            MeterRegistry cached = new SimpleMeterRegistry();
            MeterRegistry live = new SimpleMeterRegistry();
            new BatonMetrics(cached, Duration.ofHours(1)).monitor(q).monitor(q);
            new BatonMetrics(live, Duration.ZERO).monitor(q);
            jobs.insert(1, 3, Payment.PAID);
            jobs.insert(4, 1, Payment.PENDING); // not eligible: waiting
            assertEquals(3, gauge(cached, BatonMetrics.QUEUE_ELIGIBLE, q));
            assertEquals(1, gauge(cached, BatonMetrics.QUEUE_WAITING, q));
            assertEquals(0, gauge(cached, BatonMetrics.QUEUE_PROCESSING, q));

            jobs.insert(10, 2, Payment.PAID);
            assertEquals(1, q.claim(1).size());
            // the cached registry answers from its snapshot until the hour is up; the live one queries again
            assertEquals(3, gauge(cached, BatonMetrics.QUEUE_ELIGIBLE, q));
            assertEquals(0, gauge(cached, BatonMetrics.QUEUE_PROCESSING, q));
            assertEquals(4, gauge(live, BatonMetrics.QUEUE_ELIGIBLE, q));
            assertEquals(1, gauge(live, BatonMetrics.QUEUE_PROCESSING, q));
            assertEquals(0, gauge(live, BatonMetrics.QUEUE_DEAD, q));
            assertEquals(0, gauge(live, BatonMetrics.QUEUE_EXPIRED, q));
            assertEquals(0, gauge(live, BatonMetrics.QUEUE_UNKNOWN, q));
            double age = live.get(BatonMetrics.QUEUE_OLDEST_AGE)
                    .tag("queue", q.name())
                    .timeGauge()
                    .value(TimeUnit.SECONDS);
            assertTrue(age >= 0 && age < 600, "oldest eligible age " + age);
            assertEquals(1, cached.find(BatonMetrics.QUEUE_ELIGIBLE).gauges().size());
        }

        /**
         * A REQUIRE queue's refused send is counted, and its gauge shows the standbys a
         * failover could promote (none here: 0 on PostgreSQL, NaN where the database does not report them); an OFF
         * queue has no such gauge.
         */
        @Test
        void refusedNotDurableSendsAreCountedAndTheStandbysGauged() {
            jobs.insert(1, 1, Payment.PAID);
            StateTable<Payment> payments = baton.table(jobs.name()).state("payment_status", Payment.MACHINE);
            ClaimQueue<Sync> q = baton.<Sync>queue("durable-" + jobs.name())
                    .table(jobs.name())
                    .claim("sync_status", Sync.MACHINE, Sync.PENDING, Sync.PROCESSING)
                    .eligibleWhen(payments.is(Payment.PAID))
                    .deadState(Sync.FAILED)
                    .nonIdempotentSink(Sync.SENDING, Sync.UNKNOWN)
                    .sendDurability(SendDurability.REQUIRE, Duration.ofMillis(20))
                    .lease(Duration.ofMinutes(1))
                    .build();
            MeterRegistry gauges = new SimpleMeterRegistry();
            new BatonMetrics(gauges, Duration.ZERO).monitor(q).monitor(queue(3, Duration.ofMinutes(1)));
            ClaimedRow<Sync> row = q.claim(1).get(0);

            assertThrows(SendNotDurableException.class, () -> q.markSending(row));

            assertEquals(1, count(BatonMetrics.SENDS_NOT_DURABLE, "queue", q.name(), "policy", "require"));
            double standbys = gauges.get(BatonMetrics.QUEUE_FAILOVER_STANDBYS)
                    .tag("queue", q.name())
                    .gauge()
                    .value();
            // PostgreSQL counts its streaming standbys, MariaDB its semi-synchronous replicas: none here
            assertEquals(0, standbys, "no standby streams from this server");
            assertEquals(
                    1,
                    gauges.find(BatonMetrics.QUEUE_FAILOVER_STANDBYS).gauges().size(),
                    "none for OFF");
        }

        /** A refresh that fails makes every gauge NaN, not the last values. */
        @Test
        void gaugesReadNanWhileTheQueueCannotBeMeasuredAndValuesAgainAfterwards() {
            ClaimQueue<Sync> q = queue(3, Duration.ofMinutes(1));
            MeterRegistry live = new SimpleMeterRegistry();
            new BatonMetrics(live, Duration.ZERO).monitor(q);
            jobs.insert(1, 3, Payment.PAID);
            assertEquals(3, gauge(live, BatonMetrics.QUEUE_ELIGIBLE, q));
            String moved = jobs.name() + "_away";
            db.execute("ALTER TABLE " + jobs.name() + " RENAME TO " + moved); // health() now fails
            try {
                for (String name : List.of(
                        BatonMetrics.QUEUE_ELIGIBLE,
                        BatonMetrics.QUEUE_WAITING,
                        BatonMetrics.QUEUE_PROCESSING,
                        BatonMetrics.QUEUE_DEAD)) {
                    assertTrue(Double.isNaN(gauge(live, name, q)), name + " while the queue cannot be measured");
                }
                assertTrue(Double.isNaN(live.get(BatonMetrics.QUEUE_OLDEST_AGE)
                        .tag("queue", q.name())
                        .timeGauge()
                        .value(TimeUnit.SECONDS)));
            } finally {
                db.execute("ALTER TABLE " + moved + " RENAME TO " + jobs.name());
            }
            assertEquals(3, gauge(live, BatonMetrics.QUEUE_ELIGIBLE, q));
        }

        private double gauge(MeterRegistry r, String name, ClaimQueue<?> q) {
            Gauge g = r.get(name).tag("queue", q.name()).gauge();
            assertNull(r.find(name).tag("queue", "other").gauge());
            return g.value();
        }

        private void await(BooleanSupplier done) throws InterruptedException {
            long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (!done.getAsBoolean()) {
                if (System.nanoTime() > end) {
                    throw new AssertionError("not done within 60 s; meters: " + registry.getMetersAsString());
                }
                Thread.sleep(20);
            }
        }
    }

    @Nested
    class HandlerMdc extends AbstractHandlerMdcTest {}
}
