package dev.baton.internal.tx;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.baton.RetryPolicy;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The retries of a lost write conflict, derived from the transient policy. */
class ConflictRetryTest {
    @Test
    void aConflictGetsFourTimesTheAttemptsWithFullJitter() {
        RetryPolicy conflicts = Failures.conflictRetry(RetryPolicy.transientDefault());
        assertEquals(24, conflicts.maxAttempts());
        assertEquals(1.0, conflicts.jitter());
        assertEquals(RetryPolicy.transientDefault().initialDelay(), conflicts.initialDelay());
        assertEquals(RetryPolicy.transientDefault().maxDelay(), conflicts.maxDelay());
        assertEquals(
                8,
                Failures.conflictRetry(RetryPolicy.fixed(Duration.ofMillis(5)).maxAttempts(2))
                        .maxAttempts());
    }

    @Test
    void aPolicyThatNeverRetriesStillNeverDoes() {
        assertEquals(RetryPolicy.none(), Failures.conflictRetry(RetryPolicy.none()));
    }
}
