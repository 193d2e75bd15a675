package dev.baton.internal.queue;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** The durations derived from a lease, over leases from the builder's least (1 s) to its most (24 h). */
class LeaseTimingTest {
    @Test
    void everyDerivedDurationKeepsItsBoundsForAnyLease() {
        Random random = new Random(20261203);
        for (int i = 0; i < 10_000; i++) {
            Duration lease = Duration.ofMillis(
                    1_000 + (long) (random.nextDouble() * Duration.ofHours(24).toMillis()));
            LeaseTiming t = new LeaseTiming(lease);
            assertTrue(t.margin().compareTo(Duration.ofSeconds(2)) <= 0, lease::toString);
            assertTrue(t.margin().multipliedBy(20).compareTo(lease) <= 0, lease::toString);
            assertTrue(t.defaultSendTimeout().compareTo(Duration.ofMinutes(1)) <= 0, lease::toString);
            assertTrue(t.defaultSendTimeout().multipliedBy(2).compareTo(lease) < 0, "below half the lease: " + lease);
            assertTrue(
                    t.defaultHeartbeat()
                                    .multipliedBy(LeaseTiming.HEARTBEATS_PER_LEASE)
                                    .compareTo(lease)
                            <= 0,
                    lease::toString);
            long sweep = t.defaultSweep().toMillis();
            assertTrue(
                    sweep >= 1_000 && sweep <= 30_000 && (sweep <= lease.toMillis() / 2 || sweep == 1_000),
                    lease::toString);
        }
    }

    @Test
    void theDefaultsOfAThirtySecondLease() {
        LeaseTiming t = new LeaseTiming(Duration.ofSeconds(30));
        assertEquals(Duration.ofMillis(1_500), t.margin());
        assertEquals(Duration.ofMillis(7_500), t.defaultSendTimeout());
        assertEquals(Duration.ofSeconds(10), t.defaultHeartbeat());
        assertEquals(Duration.ofSeconds(15), t.defaultSweep());
    }
}
