package dev.baton;

import java.time.Duration;
import java.util.Objects;

/**
 * How often and how long to wait before trying again. Immutable: each method returns a new policy.
 *
 * <pre>{@code
 * RetryPolicy.exponential(Duration.ofSeconds(5), 2.0).maxAttempts(10).maxDelay(Duration.ofMinutes(10))
 * }</pre>
 *
 * <p>Used for transient database failures (deadlocks, serialization failures, lost connections) inside one call,
 * and by claim queues to schedule the next attempt of a failed row, where the delay is added to the database
 * clock. Delay of retry {@code n} (1-based) is {@code min(maxDelay, initial * multiplier^(n-1))}, reduced by a random
 * fraction up to {@code jitter}.
 *
 * @param initialDelay delay before the first retry
 * @param multiplier growth per retry, at least 1
 * @param maxDelay upper bound of any delay, at most {@link #MAX_DELAY} (24 days)
 * @param maxAttempts attempts in all, the first included; at least 1
 * @param jitter fraction in [0, 1] of each delay that is randomised away
 */
public record RetryPolicy(Duration initialDelay, double multiplier, Duration maxDelay, int maxAttempts, double jitter) {
    /**
     * The longest delay a policy (or {@link Outcome#retryAfter}) may ask for: 24 days. Delays are added to the
     * database clock, and SQL Server's {@code DATEADD(millisecond, n, …)} takes an {@code int} (at most 24.8 days).
     */
    public static final Duration MAX_DELAY = Duration.ofDays(24);

    /** Validates the policy. */
    public RetryPolicy {
        Objects.requireNonNull(initialDelay, "initialDelay");
        Objects.requireNonNull(maxDelay, "maxDelay");
        if (initialDelay.isNegative()) {
            throw new ConfigurationException("initialDelay must not be negative, was " + initialDelay);
        }
        if (!(multiplier >= 1.0) || Double.isInfinite(multiplier)) {
            throw new ConfigurationException("multiplier must be a finite number >= 1, was " + multiplier);
        }
        if (maxDelay.compareTo(MAX_DELAY) > 0) {
            throw new ConfigurationException("maxDelay must be at most " + MAX_DELAY + " (24 days), was " + maxDelay);
        }
        if (maxDelay.compareTo(initialDelay) < 0) {
            throw new ConfigurationException(
                    "maxDelay must be >= initialDelay, was " + maxDelay + " < " + initialDelay);
        }
        if (maxAttempts < 1) {
            throw new ConfigurationException("maxAttempts must be >= 1, was " + maxAttempts);
        }
        if (!(jitter >= 0.0 && jitter <= 1.0)) {
            throw new ConfigurationException("jitter must be in [0, 1], was " + jitter);
        }
    }

    /**
     * Exponential backoff from {@code initialDelay}, 5 attempts, delays capped at 100 × initial (and at {@link
     * #MAX_DELAY}), jitter 0.2.
     *
     * @throws ConfigurationException if {@code initialDelay} is negative or over {@link #MAX_DELAY}
     */
    public static RetryPolicy exponential(Duration initialDelay, double multiplier) {
        Objects.requireNonNull(initialDelay, "initialDelay");
        if (initialDelay.compareTo(MAX_DELAY) > 0) {
            throw new ConfigurationException(
                    "initialDelay must be at most " + MAX_DELAY + " (24 days), was " + initialDelay);
        }
        Duration cap =
                initialDelay.compareTo(MAX_DELAY.dividedBy(100)) > 0 ? MAX_DELAY : initialDelay.multipliedBy(100);
        return new RetryPolicy(initialDelay, multiplier, cap, 5, 0.2);
    }

    /** The same delay before every retry, 5 attempts, no jitter. */
    public static RetryPolicy fixed(Duration delay) {
        return new RetryPolicy(delay, 1.0, delay, 5, 0.0);
    }

    /** Never retry. */
    public static RetryPolicy none() {
        return new RetryPolicy(Duration.ZERO, 1.0, Duration.ZERO, 1, 0.0);
    }

    /** The default for transient database failures: 10 ms doubling to 1 s, 6 attempts, jitter 0.5. */
    public static RetryPolicy transientDefault() {
        return new RetryPolicy(Duration.ofMillis(10), 2.0, Duration.ofSeconds(1), 6, 0.5);
    }

    /** The same policy with another attempt limit. */
    public RetryPolicy maxAttempts(int attempts) {
        return new RetryPolicy(initialDelay, multiplier, maxDelay, attempts, jitter);
    }

    /** The same policy with another cap on delays. */
    public RetryPolicy maxDelay(Duration cap) {
        return new RetryPolicy(initialDelay, multiplier, cap, maxAttempts, jitter);
    }

    /** The same policy with another jitter fraction. */
    public RetryPolicy jitter(double fraction) {
        return new RetryPolicy(initialDelay, multiplier, maxDelay, maxAttempts, fraction);
    }

    /**
     * The delay before retry number {@code retry} (1 for the first retry), with jitter drawn from {@code random}, a
     * number in [0, 1).
     */
    public Duration delayBefore(int retry, double random) {
        if (retry < 1) {
            throw new IllegalArgumentException("retry must be >= 1, was " + retry);
        }
        double millis = initialDelay.toMillis() * Math.pow(multiplier, retry - 1);
        millis = Math.min(millis, maxDelay.toMillis());
        millis = millis * (1.0 - jitter * random);
        return Duration.ofMillis(Math.round(millis));
    }
}
