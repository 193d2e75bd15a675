package dev.baton;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The send protocol without a database: the checks of a non-idempotent sink's queue made at {@code build()}, and the
 * local deadline of a claim, which refuses a send before any SQL (the data source counts connection requests).
 */
class SendProtocolTest {
    enum Job {
        PENDING,
        PROCESSING,
        SENDING,
        UNKNOWN,
        DONE,
        DEAD
    }

    private static final CountingDataSource DATA_SOURCE = new CountingDataSource();
    private static final Baton BATON = Baton.builder(DATA_SOURCE.dataSource())
            .dialect(AssignmentsRefusalTest.stubDialect())
            .build();

    private static StateMachine.Builder<Job> machine() {
        return StateMachine.of(Job.class)
                .name("job")
                .initial(Job.PENDING)
                .allow(Job.PENDING, Job.PROCESSING)
                .allow(Job.PROCESSING, Job.PENDING, Job.DONE, Job.DEAD, Job.SENDING)
                .allow(Job.SENDING, Job.DONE, Job.UNKNOWN, Job.DEAD)
                .terminal(Job.DONE, Job.DEAD);
    }

    private static ClaimQueueBuilder<Job> queue(StateMachine<Job> machine) {
        return BATON.<Job>queue("send-jobs")
                .table("jobs")
                .claim("status", machine, Job.PENDING, Job.PROCESSING)
                .deadState(Job.DEAD)
                .nonIdempotentSink(Job.SENDING, Job.UNKNOWN)
                .lease(Duration.ofSeconds(10));
    }

    @Test
    void buildRefusesAMachineWithNoWayOutOfTheUnknownState() {
        // service-chaos friction 7: such a queue started, and every reconciliation failed later
        ConfigurationException e = assertThrows(
                ConfigurationException.class,
                () -> queue(machine().allow(Job.UNKNOWN, Job.DONE).build()).build());
        assertTrue(e.getMessage().contains("'send-jobs'"), e.getMessage());
        assertTrue(e.getMessage().contains("UNKNOWN -> PENDING"), e.getMessage());
        assertTrue(e.getMessage().contains("UNKNOWN -> DEAD"), e.getMessage());
        ConfigurationException noCompletion = assertThrows(ConfigurationException.class, () -> queue(
                        machine().allow(Job.UNKNOWN, Job.PENDING, Job.DEAD).build())
                .build());
        assertTrue(noCompletion.getMessage().contains("completion state"), noCompletion.getMessage());
        ConfigurationException noDead = assertThrows(ConfigurationException.class, () -> queue(
                        machine().allow(Job.UNKNOWN, Job.DONE, Job.PENDING).build())
                .build());
        assertTrue(noDead.getMessage().contains("UNKNOWN -> DEAD"), noDead.getMessage());
        queue(machine().allow(Job.UNKNOWN, Job.DONE, Job.PENDING, Job.DEAD).build())
                .build();
    }

    @Test
    void sendTimeoutMustBeBelowHalfTheLease() {
        StateMachine<Job> m =
                machine().allow(Job.UNKNOWN, Job.DONE, Job.PENDING, Job.DEAD).build();
        ConfigurationException e =
                assertThrows(ConfigurationException.class, () -> queue(m).sendTimeout(Duration.ofSeconds(5))
                        .build());
        assertTrue(e.getMessage().contains("'send-jobs'") && e.getMessage().contains("half"), e.getMessage());
        assertThrows(ConfigurationException.class, () -> queue(m).sendTimeout(Duration.ZERO));
        // set before a shorter lease: still checked
        assertThrows(ConfigurationException.class, () -> queue(m).sendTimeout(Duration.ofSeconds(2))
                .lease(Duration.ofSeconds(3))
                .build());
        assertEquals(
                Duration.ofMillis(4999),
                queue(m).sendTimeout(Duration.ofMillis(4999)).build().sendTimeout());
        assertEquals(Duration.ofMillis(2500), queue(m).build().sendTimeout(), "default: a quarter of the lease");
        assertEquals(
                Duration.ofMinutes(1),
                queue(m).lease(Duration.ofHours(1)).build().sendTimeout(),
                "default: at most a minute");
    }

    @Test
    void aClaimPastItsLocalDeadlineIsNotMarkedAndNoSqlIsSent() {
        ClaimQueue<Job> q = queue(machine()
                        .allow(Job.UNKNOWN, Job.DONE, Job.PENDING, Job.DEAD)
                        .build())
                .build();
        Duration lease = q.lease();
        // claimed 11 s ago with a 10 s lease: this process was paused past it, and no heartbeat ran to tell
        ClaimedRow<Job> paused = new ClaimedRow<>(
                "send-jobs",
                1L,
                42L,
                1,
                Map.of(),
                System.nanoTime() - Duration.ofSeconds(11).toNanos(),
                lease,
                Duration.ofMillis(500),
                q.sendTimeout());
        int before = DATA_SOURCE.connections();
        LeaseResult<Job> r = q.markSending(paused);
        assertInstanceOf(LeaseResult.TooLate.class, r);
        assertTrue(((LeaseResult.TooLate<Job>) r).remaining().isNegative());
        assertEquals(before, DATA_SOURCE.connections(), "no SQL for a claim past its local deadline");
        assertTrue(paused.leaseLost(), "the local deadline passed");
        LeaseLostException e = assertThrows(LeaseLostException.class, paused::checkLease);
        assertTrue(e.getMessage().contains("local deadline"), e.getMessage());

        // 8 s ago: 1.5 s left (10 s lease, 0.5 s margin), less than the 2.5 s a send may take
        ClaimedRow<Job> late = new ClaimedRow<>(
                "send-jobs",
                2L,
                43L,
                1,
                Map.of(),
                System.nanoTime() - Duration.ofSeconds(8).toNanos(),
                lease,
                Duration.ofMillis(500),
                q.sendTimeout());
        assertInstanceOf(LeaseResult.TooLate.class, q.markSending(late));
        assertEquals(before, DATA_SOURCE.connections());
        late.checkLease(); // still inside its deadline: a handler may go on with work it can undo
        assertTrue(late.remaining().toMillis() > 1000 && late.remaining().toMillis() <= 1500, "" + late.remaining());
        Duration left = late.remaining();
        assertTrue(late.sendTimeLeft().compareTo(left) <= 0, "the send never gets more than the claim has left");
        assertEquals(1L, late.sendToken());
    }
}
