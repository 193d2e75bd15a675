package dev.baton.micrometer;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.baton.CommitDurability;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * {@code baton.commits.not.durable}: commits no standby was known to have in time, counted per policy (the listener
 * calls themselves are shown by {@code AbstractCommitDurabilityTest}).
 */
class BatonMetricsCommitsNotDurableTest {

    @Test
    void commitsNotKnownDurableAreCountedPerPolicy() {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        BatonMetrics metrics = new BatonMetrics(registry, Duration.ZERO);
        metrics.onCommitNotDurable("transition payments id 1 to PAID", CommitDurability.REQUIRE, "no standby");
        metrics.onCommitNotDurable("transition payments id 2 to PAID", CommitDurability.REQUIRE, "no standby");
        metrics.onCommitNotDurable("transaction", CommitDurability.WARN, "no standby");
        assertEquals(
                2.0,
                registry.get(BatonMetrics.COMMITS_NOT_DURABLE)
                        .tag("policy", "require")
                        .counter()
                        .count());
        assertEquals(
                1.0,
                registry.get(BatonMetrics.COMMITS_NOT_DURABLE)
                        .tag("policy", "warn")
                        .counter()
                        .count());
    }
}
