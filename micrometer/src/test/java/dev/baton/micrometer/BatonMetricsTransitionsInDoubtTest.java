package dev.baton.micrometer;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.baton.TransitionsInDoubt;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * {@code baton.transitions.in.doubt}: the failover audit's reports counted per table (the reports themselves are shown
 * on PostgreSQL by {@code PostgresFailoverAuditTest}).
 */
class BatonMetricsTransitionsInDoubtTest {

    @Test
    void lostTransitionsAreCountedPerTable() {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        BatonMetrics metrics = new BatonMetrics(registry, Duration.ZERO);
        metrics.onTransitionsInDoubt(
                new TransitionsInDoubt("payments", "timeline 1", "timeline 2", 12, 3, List.of(2L, 5L, 11L), 0));
        metrics.onTransitionsInDoubt(
                new TransitionsInDoubt("payments", "timeline 2", "timeline 3", 4, 0, List.of(), 0));
        metrics.onTransitionsInDoubt(
                new TransitionsInDoubt("orders", "timeline 2", "timeline 3", 7, 2, List.of(1L, 9L), 0));
        assertEquals(
                3.0,
                registry.get(BatonMetrics.TRANSITIONS_IN_DOUBT)
                        .tag("table", "payments")
                        .counter()
                        .count());
        assertEquals(
                2.0,
                registry.get(BatonMetrics.TRANSITIONS_IN_DOUBT)
                        .tag("table", "orders")
                        .counter()
                        .count());
    }
}
