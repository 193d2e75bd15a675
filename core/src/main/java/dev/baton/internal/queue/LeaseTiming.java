package dev.baton.internal.queue;

import java.time.Duration;

/**
 * The lease of a queue's claims and every duration derived from it, in one place.
 *
 * @param lease how long a claim holds its rows, by the database clock
 */
public record LeaseTiming(Duration lease) {
    /** The least number of heartbeats a lease must cover: two may be lost before the lease runs out. */
    public static final int HEARTBEATS_PER_LEASE = 3;

    /**
     * What the local deadline of a claim keeps back from the lease, and what the quarantine of an unknown send adds:
     * a twentieth of the lease, at most 2 s. It covers the rate difference of the JVM's monotonic clock and the
     * database's clock over one lease (NTP slews at most 0.05 %) and the scheduling of the checks.
     */
    public Duration margin() {
        return min(lease.dividedBy(20), Duration.ofSeconds(2));
    }

    /** The time a send may take when the queue sets none: a quarter of the lease, at most a minute. */
    public Duration defaultSendTimeout() {
        return min(lease.dividedBy(4), Duration.ofMinutes(1));
    }

    /** How often a worker extends held leases when it sets nothing: the lease divided by {@value #HEARTBEATS_PER_LEASE}. */
    public Duration defaultHeartbeat() {
        return lease.dividedBy(HEARTBEATS_PER_LEASE);
    }

    /**
     * How often a worker runs the expiry sweep when it sets nothing: half the lease, between 1 s and 30 s (a lease
     * that ran out waits at most half a lease more before its rows are claimable again).
     */
    public Duration defaultSweep() {
        long half = lease.toMillis() / 2;
        return Duration.ofMillis(Math.max(1000, Math.min(half, 30_000)));
    }

    private static Duration min(Duration a, Duration b) {
        return a.compareTo(b) > 0 ? b : a;
    }
}
