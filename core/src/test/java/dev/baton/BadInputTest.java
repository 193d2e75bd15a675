package dev.baton;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrowsExactly;

import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Bad input that used to reach SQL (or throw an untyped exception) is refused with a typed Baton
 * exception where it is made. The data source has no database behind it and counts connection requests, so reaching
 * SQL would both count and fail differently.
 */
class BadInputTest {
    enum Job {
        PENDING,
        PROCESSING,
        DONE,
        DEAD
    }

    static final StateMachine<Job> MACHINE = StateMachine.of(Job.class)
            .name("job")
            .initial(Job.PENDING)
            .allow(Job.PENDING, Job.PROCESSING)
            .allow(Job.PROCESSING, Job.PENDING, Job.DONE, Job.DEAD)
            .terminal(Job.DONE, Job.DEAD)
            .build();

    private static final CountingDataSource DATA_SOURCE = new CountingDataSource();
    private static final Baton BATON = Baton.builder(DATA_SOURCE.dataSource())
            .dialect(AssignmentsRefusalTest.stubDialect())
            .build();

    static List<Arguments> badInputs() {
        Duration overMax = Duration.ofDays(24).plusMillis(1);
        return List.of(
                bad("retry policy maxDelay over 24 days", ConfigurationException.class, () -> RetryPolicy.exponential(
                                Duration.ofSeconds(1), 2.0)
                        .maxDelay(overMax)),
                bad("fixed retry delay over 24 days", ConfigurationException.class, () -> RetryPolicy.fixed(overMax)),
                bad(
                        "exponential initial delay over 24 days",
                        ConfigurationException.class,
                        () -> RetryPolicy.exponential(Duration.ofDays(25), 2.0)),
                bad(
                        "retryAfter over 24 days",
                        ConfigurationException.class,
                        () -> Outcome.<Job>retryAfter(overMax, "later")),
                bad(
                        "retryAfter of 20 years",
                        ConfigurationException.class,
                        () -> Outcome.<Job>retryAfter(Duration.ofDays(20 * 365), "later")),
                bad(
                        "retryAfter of 300,000 years",
                        ConfigurationException.class,
                        () -> Outcome.<Job>retryAfter(Duration.ofDays(300_000L * 365), "later")),
                bad("idempotency lease of 1 ms", ConfigurationException.class, () -> IdempotencyKeys.Options.defaults()
                        .lease(Duration.ofMillis(1))),
                bad(
                        "idempotency lease of 999 ms",
                        ConfigurationException.class,
                        () -> IdempotencyKeys.Options.defaults().lease(Duration.ofMillis(999))),
                bad("outbox headers over 64 KB", PayloadTooLargeException.class, () -> Message.of("t", "p")
                        .header("h", "x".repeat(70_000))),
                bad("outbox headers over 64 KB once encoded", PayloadTooLargeException.class, () -> Message.of("t", "p")
                        .header("h", "=".repeat(30_000))),
                bad(
                        "StateIn with a quote",
                        ConfigurationException.class,
                        () -> new Condition.StateIn("status", List.of("it's"), List.of())),
                bad(
                        "StateIn with a control character",
                        ConfigurationException.class,
                        () -> new Condition.StateIn("status", List.of("a\u0000"), List.of())),
                bad(
                        "StateIn with a Double code",
                        ConfigurationException.class,
                        () -> new Condition.StateIn("status", List.of(1.5), List.of())),
                bad(
                        "StateIn without codes",
                        ConfigurationException.class,
                        () -> new Condition.StateIn("status", List.of(), List.of())),
                bad(
                        "StateIn on a bad column",
                        InvalidIdentifierException.class,
                        () -> new Condition.StateIn("a;b", List.of("X"), List.of())),
                bad(
                        "olderThan 10^12 days",
                        ConfigurationException.class,
                        () -> Condition.olderThan("created_at", Duration.ofDays(1_000_000_000_000L))),
                bad(
                        "olderThan 300,000 years",
                        ConfigurationException.class,
                        () -> Condition.olderThan("created_at", Duration.ofDays(300_000L * 365))),
                bad(
                        "purgeDelivered of delivered messages younger than the enqueue's lost-reply window",
                        ConfigurationException.class,
                        () -> BATON.outbox("baton_outbox").purgeDelivered(Duration.ofMinutes(9))),
                bad(
                        "Inbox.deleteOlderThan of records younger than the receive's lost-reply window",
                        ConfigurationException.class,
                        () -> BATON.inbox("baton_inbox").deleteOlderThan(Duration.ofMillis(1))),
                bad("purgeDelivered with a negative age", ConfigurationException.class, () -> BATON.outbox(
                                "baton_outbox")
                        .purgeDelivered(Duration.ofHours(-1))),
                bad(
                        "ageColumn longer than the database's limit",
                        InvalidIdentifierException.class,
                        () -> queue().ageColumn("a".repeat(64)).build()),
                bad(
                        "sendDurability without a non-idempotent sink",
                        ConfigurationException.class,
                        () -> queue().sendDurability(SendDurability.REQUIRE, Duration.ofSeconds(1))
                                .build()),
                bad("sendDurability waiting 0 ms", ConfigurationException.class, () -> queue().sendDurability(
                                SendDurability.WARN, Duration.ZERO)),
                bad("sendDurability waiting 2 minutes", ConfigurationException.class, () -> queue().sendDurability(
                                SendDurability.REQUIRE, Duration.ofMinutes(2))),
                bad(
                        "transition set of a column longer than the database's limit",
                        InvalidIdentifierException.class,
                        () -> BATON.table("jobs")
                                .state("status", MACHINE)
                                .transition(1L, Job.PENDING, Job.PROCESSING)
                                .set("a".repeat(64), 1)),
                bad(
                        "transition setNow of a column longer than the database's limit",
                        InvalidIdentifierException.class,
                        () -> BATON.table("jobs")
                                .state("status", MACHINE)
                                .transition(1L, Job.PENDING, Job.PROCESSING)
                                .setNow("a".repeat(64))),
                bad(
                        "bulk transition set of a column longer than the database's limit",
                        InvalidIdentifierException.class,
                        () -> BATON.table("jobs")
                                .state("status", MACHINE)
                                .bulk(Job.PENDING, Job.PROCESSING)
                                .set("a".repeat(64), 1)),
                bad(
                        "bulk transition guarded by a StateIn with a quote",
                        ConfigurationException.class,
                        () -> BATON.table("jobs")
                                .state("status", MACHINE)
                                .bulk(Job.PENDING, Job.PROCESSING)
                                .where(new Condition.StateIn("status", List.of("x'"), List.of()))
                                .apply()));
    }

    private static Arguments bad(String name, Class<? extends Throwable> expected, Executable call) {
        return Arguments.of(name, expected, call);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("badInputs")
    void refusedWithATypedErrorBeforeSql(String name, Class<? extends Throwable> expected, Executable call) {
        int before = DATA_SOURCE.connections();
        assertThrowsExactly(expected, call, name);
        assertEquals(before, DATA_SOURCE.connections(), "no connection was requested: nothing reached SQL");
    }

    @Test
    void theLimitsThemselvesAreAccepted() {
        Duration max = Duration.ofDays(24);
        assertEquals(max, RetryPolicy.fixed(max).maxDelay());
        assertEquals(max, RetryPolicy.exponential(Duration.ofDays(1), 2.0).maxDelay(), "capped, not refused");
        assertEquals(max, Outcome.<Job>retryAfter(max, "later").delay());
        assertEquals(
                Duration.ofSeconds(1),
                IdempotencyKeys.Options.defaults().lease(Duration.ofSeconds(1)).lease());
        Condition.olderThan("created_at", Condition.MAX_AGE);
        Message.of("t", "p").header("h", "x".repeat(Message.MAX_HEADER_BYTES - "h=\n".length()));
        assertEquals(
                List.of(1L, 2L),
                new Condition.StateIn("status", List.of(1, 2L), List.of()).codes(),
                "integer codes are stored as Long, as the machine stores them");
        queue().ageColumn("a".repeat(63)).build();
        BATON.table("jobs")
                .state("status", MACHINE)
                .transition(1L, Job.PENDING, Job.PROCESSING)
                .set("a".repeat(63), 1)
                .setNow("b".repeat(63));
        assertEquals(0, DATA_SOURCE.connections());
    }

    private static ClaimQueueBuilder<Job> queue() {
        return BATON.<Job>queue("jobs")
                .table("jobs")
                .claim("status", MACHINE, Job.PENDING, Job.PROCESSING)
                .deadState(Job.DEAD)
                .lease(Duration.ofMinutes(1));
    }
}
