package dev.baton;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class RetryPolicyTest {
    @Test
    void exponentialDelaysAreCappedAndJittered() {
        RetryPolicy p = RetryPolicy.exponential(Duration.ofSeconds(5), 2.0)
                .maxAttempts(10)
                .maxDelay(Duration.ofSeconds(30))
                .jitter(0.5);
        assertEquals(Duration.ofSeconds(5), p.delayBefore(1, 0.0));
        assertEquals(Duration.ofSeconds(10), p.delayBefore(2, 0.0));
        assertEquals(Duration.ofSeconds(30), p.delayBefore(5, 0.0));
        assertEquals(Duration.ofMillis(2500), p.delayBefore(1, 1.0));
    }

    @Test
    void badValuesAreRefused() {
        assertThrows(ConfigurationException.class, () -> RetryPolicy.exponential(Duration.ofSeconds(-1), 2));
        assertThrows(ConfigurationException.class, () -> RetryPolicy.exponential(Duration.ofSeconds(1), 0.5));
        assertThrows(ConfigurationException.class, () -> RetryPolicy.exponential(Duration.ofSeconds(1), Double.NaN));
        assertThrows(ConfigurationException.class, () -> RetryPolicy.fixed(Duration.ofSeconds(1))
                .maxAttempts(0));
        assertThrows(ConfigurationException.class, () -> RetryPolicy.fixed(Duration.ofSeconds(1))
                .jitter(1.5));
        assertThrows(ConfigurationException.class, () -> RetryPolicy.fixed(Duration.ofSeconds(1))
                .maxDelay(Duration.ofMillis(1)));
    }
}
