package dev.baton;

import java.time.Duration;
import org.jspecify.annotations.Nullable;

/**
 * A snapshot of a claim queue, measured by the database (one query, no JVM clock).
 *
 * @param eligible rows a worker could claim now
 * @param waiting rows in the claimable state that are not due yet (retry backoff) or not eligible
 * @param inFlight rows claimed with a live lease
 * @param expiredLeases claimed rows whose lease expired (their worker died or stalled; reclaimed by the next sweep)
 * @param dead rows in the dead state
 * @param unknown rows whose external send has an unknown outcome (non-idempotent sinks), awaiting reconciliation
 * @param oldestEligibleAge age of the oldest eligible row by the queue's age column, or null if none is configured or
 *     nothing is eligible
 */
public record QueueHealth(
        long eligible,
        long waiting,
        long inFlight,
        long expiredLeases,
        long dead,
        long unknown,
        @Nullable Duration oldestEligibleAge) {}
