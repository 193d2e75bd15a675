package dev.baton.spring.boot;

import dev.baton.ClaimQueue;
import dev.baton.QueueHealth;
import org.jspecify.annotations.Nullable;

/**
 * One queue as the Actuator health indicator and the {@code baton} endpoint show it: the counts of
 * {@link ClaimQueue#health()} (one query, measured by the database) and the state of this host's worker.
 *
 * @param queue the queue's name
 * @param table the table it claims from
 * @param worker this host's worker: {@code running}, {@code stopped}, {@code disabled} (by configuration) or
 *     {@code none} (the queue is a bean without a {@link QueueWorker})
 * @param failedPolls polls of this host's worker that failed in a row ({@link dev.baton.Worker#consecutiveFailedPolls}),
 *     0 without a running worker
 * @param failedFlushes commits of this host's worker's outcomes that failed in a row
 *     ({@link dev.baton.Worker#consecutiveFailedFlushes}), 0 without a running worker
 * @param eligible rows a worker could claim now
 * @param waiting rows in the claimable state that are not due or not eligible
 * @param inFlight rows claimed with a live lease
 * @param expiredLeases claimed rows whose lease expired
 * @param dead rows in the dead state
 * @param unknown rows whose send has an unknown outcome, awaiting reconciliation
 * @param oldestEligibleAge ISO-8601 age of the oldest eligible row by the queue's age column, or null
 */
public record QueueReport(
        String queue,
        String table,
        String worker,
        int failedPolls,
        int failedFlushes,
        long eligible,
        long waiting,
        long inFlight,
        long expiredLeases,
        long dead,
        long unknown,
        @Nullable String oldestEligibleAge) {
    static QueueReport of(ClaimQueue<?> queue, String worker, int failedPolls, int failedFlushes, QueueHealth h) {
        return new QueueReport(
                queue.name(),
                queue.table(),
                worker,
                failedPolls,
                failedFlushes,
                h.eligible(),
                h.waiting(),
                h.inFlight(),
                h.expiredLeases(),
                h.dead(),
                h.unknown(),
                h.oldestEligibleAge() == null ? null : h.oldestEligibleAge().toString());
    }
}
