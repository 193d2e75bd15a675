package dev.baton.postgres;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.baton.Baton;
import dev.baton.BatonListener;
import dev.baton.ClaimQueue;
import dev.baton.ClaimedRow;
import dev.baton.Condition;
import dev.baton.LeaseResult;
import dev.baton.Outcome;
import dev.baton.QueueHealth;
import dev.baton.SchemaMismatchException;
import dev.baton.SendDurability;
import dev.baton.SendNotDurableException;
import dev.baton.StateTable;
import dev.baton.Worker;
import dev.baton.testkit.compat.JobsTable;
import dev.baton.testkit.compat.Payment;
import dev.baton.testkit.compat.Sync;
import dev.baton.testkit.failover.Timing;
import dev.baton.testservers.TestDatabase;
import dev.baton.testservers.TestServer;
import java.sql.Connection;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

/**
 * {@code sendDurability} without a failover: on a server with no standby (the local PostgreSQL) a mark is never known
 * durable, so {@code REQUIRE} refuses the send (the row, SENDING and unsent, goes back with a retry) and {@code WARN}
 * sends after its wait; on the writer of a primary with a streaming standby {@code REQUIRE} passes.
 */
class PostgresSendDurabilityTest {
    private static final Duration WAIT = Duration.ofMillis(50);

    @Test
    void withoutAStandbyRequireRefusesTheSendAndTheRowGoesBackWithARetry() {
        TestDatabase db = TestServer.POSTGRES_LOCAL.get();
        JobsTable jobs = JobsTable.create(db, "durable", true);
        try {
            jobs.insert(1, 1, Payment.PAID);
            List<SendDurability> notDurable = new CopyOnWriteArrayList<>();
            Baton baton = Baton.builder(db.dataSource())
                    .listener(new BatonListener() {
                        @Override
                        public void onSendNotDurable(String queue, Object id, SendDurability policy) {
                            notDurable.add(policy);
                        }
                    })
                    .build();
            ClaimQueue<Sync> q = queue(baton, jobs.name(), SendDurability.REQUIRE, WAIT);
            ClaimedRow<Sync> row = q.claim(1).get(0);

            SendNotDurableException e = assertThrows(SendNotDurableException.class, () -> q.markSending(row));
            assertTrue(e.getMessage().contains("no standby"), e.getMessage());
            assertEquals(List.of(SendDurability.REQUIRE), notDurable, "the refusal is reported to listeners");
            assertEquals(Sync.SENDING, jobs.sync(1), "the mark is committed, only not known durable");

            assertInstanceOf(LeaseResult.Done.class, q.apply(row, Outcome.retry("not durable")));
            assertEquals(Sync.PENDING, jobs.sync(1));
        } finally {
            jobs.drop();
        }
    }

    @Test
    void withoutAStandbyWarnSendsAfterItsWait() {
        TestDatabase db = TestServer.POSTGRES_LOCAL.get();
        JobsTable jobs = JobsTable.create(db, "durable", true);
        try {
            jobs.insert(1, 1, Payment.PAID);
            ClaimQueue<Sync> q = queue(Baton.using(db.dataSource()), jobs.name(), SendDurability.WARN, WAIT);
            ClaimedRow<Sync> row = q.claim(1).get(0);
            long start = System.nanoTime();

            assertInstanceOf(LeaseResult.Done.class, q.markSending(row));

            assertTrue(System.nanoTime() - start >= WAIT.toNanos(), "it waited for a standby first");
            assertEquals(Sync.SENDING, jobs.sync(1));
        } finally {
            jobs.drop();
        }
    }

    /**
     * A durability wait configured longer than the lease (no standby answers, as when the standby is down): the wait
     * ends early enough to leave the send its timeout before the claim's deadline, so {@code markSending} answers Done
     * with send time left and the lease still running in the database, and a Worker's handler never starts a send with
     * no time left.
     */
    @Test
    void aDurabilityWaitLongerThanTheLeaseNeverEatsTheSendsTime() throws Exception {
        TestDatabase db = TestServer.POSTGRES_LOCAL.get();
        JobsTable jobs = JobsTable.create(db, "durable", true);
        Duration lease = Duration.ofSeconds(2);
        try {
            jobs.insert(1, 2, Payment.PAID);
            ClaimQueue<Sync> q =
                    queue(Baton.using(db.dataSource()), jobs.name(), SendDurability.WARN, Duration.ofSeconds(3), lease);
            ClaimedRow<Sync> row = q.claim(1).get(0);
            long start = System.nanoTime();

            LeaseResult<Sync> marked = q.markSending(row);

            long tookMillis = (System.nanoTime() - start) / 1_000_000;
            Duration sendLeft = row.sendTimeLeft();
            assertInstanceOf(LeaseResult.Done.class, marked);
            assertTrue(
                    sendLeft.compareTo(q.sendTimeout().dividedBy(2)) > 0,
                    "send time left " + sendLeft.toMillis() + " ms after a mark of " + tookMillis + " ms");
            assertTrue(row.remaining().compareTo(sendLeft) >= 0, "the send ends before the claim's deadline");
            try (Connection c = db.connect();
                    ResultSet rs = c.createStatement()
                            .executeQuery(
                                    "SELECT lease_until > now() FROM " + jobs.name() + " WHERE id = " + row.longId())) {
                assertTrue(rs.next() && rs.getBoolean(1), "the lease still runs in the database");
            }

            List<Long> handlerSendMillis = new CopyOnWriteArrayList<>();
            Worker worker = Baton.using(db.dataSource())
                    .worker(q)
                    .pollInterval(Duration.ofMillis(20), Duration.ofMillis(100))
                    .handle(r -> {
                        handlerSendMillis.add(r.sendTimeLeft().toMillis());
                        return Outcome.complete(Sync.COMPLETED);
                    })
                    .start();
            try {
                Timing.await("the second row handled", () -> !handlerSendMillis.isEmpty(), 20);
            } finally {
                worker.close();
            }
            assertTrue(handlerSendMillis.get(0) > 0, "the handler's send time left " + handlerSendMillis);
        } finally {
            jobs.drop();
        }
    }

    @Test
    void withAStreamingStandbyRequireLetsTheSendGo() {
        TestDatabase db = TestServer.POSTGRES_STREAMING_ASYNC.get();
        JobsTable jobs = JobsTable.create(db, "durable", true);
        try {
            jobs.insert(1, 20, Payment.PAID);
            // a wait a loaded machine's standby meets; it returns as soon as the standby has flushed the mark
            ClaimQueue<Sync> q =
                    queue(Baton.using(db.dataSource()), jobs.name(), SendDurability.REQUIRE, Duration.ofSeconds(10));
            for (ClaimedRow<Sync> row : q.claim(20)) {
                assertInstanceOf(LeaseResult.Done.class, q.markSending(row));
            }
            assertEquals(20, jobs.countBySync().getOrDefault(Sync.SENDING, 0));
        } finally {
            jobs.drop();
        }
    }

    /**
     * The health detail and {@code verify()} check: without a standby, a REQUIRE queue's health says no
     * send can start and {@code verify()} refuses the queue; an OFF queue asks nothing.
     */
    @Test
    void withoutAStandbyHealthAndVerifySayThatRequireRefusesEverySend() {
        TestDatabase db = TestServer.POSTGRES_LOCAL.get();
        JobsTable jobs = JobsTable.create(db, "durable", true);
        try {
            Baton baton = Baton.using(db.dataSource());
            ClaimQueue<Sync> require = queue(baton, jobs.name(), SendDurability.REQUIRE, WAIT);
            QueueHealth h = require.health();
            assertEquals(0, h.failoverStandbys(), h.toString());
            assertTrue(h.sendDurabilityProblem().contains("no standby streams"), h.sendDurabilityProblem());
            SchemaMismatchException e = assertThrows(SchemaMismatchException.class, require::verify);
            assertTrue(e.getMessage().contains("every send is refused"), e.getMessage());

            ClaimQueue<Sync> off = queue(baton, jobs.name(), SendDurability.OFF, WAIT);
            assertEquals(-1, off.health().failoverStandbys());
            assertNull(off.health().sendDurabilityProblem());
            off.verify();
        } finally {
            jobs.drop();
        }
    }

    @Test
    void withAStreamingStandbyHealthCountsItAndVerifyPasses() {
        TestDatabase db = TestServer.POSTGRES_STREAMING_ASYNC.get();
        JobsTable jobs = JobsTable.create(db, "durable", true);
        try {
            ClaimQueue<Sync> q = queue(Baton.using(db.dataSource()), jobs.name(), SendDurability.REQUIRE, WAIT);
            QueueHealth h = q.health();
            assertEquals(1, h.failoverStandbys(), h.toString());
            assertNull(h.sendDurabilityProblem(), h.toString());
            q.verify();
        } finally {
            jobs.drop();
        }
    }

    private static ClaimQueue<Sync> queue(Baton baton, String table, SendDurability durability, Duration wait) {
        return queue(baton, table, durability, wait, Duration.ofMinutes(1));
    }

    private static ClaimQueue<Sync> queue(
            Baton baton, String table, SendDurability durability, Duration wait, Duration lease) {
        StateTable<Payment> payments = baton.table(table).state("payment_status", Payment.MACHINE);
        return baton.<Sync>queue("durable-" + table)
                .table(table)
                .claim("sync_status", Sync.MACHINE, Sync.PENDING, Sync.PROCESSING)
                .eligibleWhen(payments.is(Payment.PAID), Condition.isNull("third_party_guid"))
                .deadState(Sync.FAILED)
                .nonIdempotentSink(Sync.SENDING, Sync.UNKNOWN)
                .sendDurability(durability, wait)
                .lease(lease)
                .build();
    }
}
