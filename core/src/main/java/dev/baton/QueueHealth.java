package dev.baton;

import java.time.Duration;
import org.jspecify.annotations.Nullable;

/**
 * A snapshot of a claim queue, measured by the database (one query, no JVM clock).
 *
 * @param eligible rows a worker could claim now
 * @param waiting rows in the claimable state that are not due yet (retry backoff), not eligible, or held behind an
 *     older row of their key (a queue ordered per key: one in flight, or a dead one that holds its key)
 * @param inFlight rows claimed with a live lease
 * @param expiredLeases claimed rows whose lease expired (their worker died or stalled; reclaimed by the next sweep)
 * @param dead rows in the dead state
 * @param unknown rows whose external send has an unknown outcome (non-idempotent sinks), awaiting reconciliation
 * @param oldestEligibleAge age of the oldest eligible row by the queue's age column, or null if none is configured or
 *     nothing is eligible
 * @param failoverStandbys for a queue whose {@link ClaimQueueBuilder#sendDurability sendDurability} is not {@code
 *     OFF}: the standbys streaming from the writer that a failover could promote (a second query, on the writer);
 *     -1 when the policy is {@code OFF} or the database (or its user) cannot say
 * @param sendDurabilityProblem for such a queue, why its SENDING marks cannot be durable on a standby now (no standby
 *     streams, or the progress cannot be read): with {@link SendDurability#REQUIRE} every send is refused until it is
 *     fixed; null when the precondition can hold or the policy is {@code OFF}
 */
public record QueueHealth(
        long eligible,
        long waiting,
        long inFlight,
        long expiredLeases,
        long dead,
        long unknown,
        @Nullable Duration oldestEligibleAge,
        int failoverStandbys,
        @Nullable String sendDurabilityProblem) {

    /** A snapshot of a queue whose send durability is not checked ({@code failoverStandbys} -1, no problem). */
    public QueueHealth(
            long eligible,
            long waiting,
            long inFlight,
            long expiredLeases,
            long dead,
            long unknown,
            @Nullable Duration oldestEligibleAge) {
        this(eligible, waiting, inFlight, expiredLeases, dead, unknown, oldestEligibleAge, -1, null);
    }
}
