package dev.baton.spring.boot.actuate;

import dev.baton.spring.boot.BatonProperties;
import dev.baton.spring.boot.BatonQueues;
import dev.baton.spring.boot.QueueReport;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Baton's health as the {@code baton} health indicator of either starter reports it, apart from Spring Boot's types
 * (its health classes moved between Boot 3 and Boot 4): one query per queue ({@link QueueReport}).
 *
 * <ul>
 *   <li>{@link State#DOWN} when a queue's worker is stopped while the application runs (it should be polling), or a
 *       worker's last {@code baton.health.max-failed-polls} polls (default 3) failed
 *       ({@link dev.baton.Worker#consecutiveFailedPolls()}: a worker keeps running, and retrying, while the database
 *       refuses its claims, so running is not the same as polling), or as many of its commits of outcomes failed in a
 *       row ({@link dev.baton.Worker#consecutiveFailedFlushes()}: claims that succeed in between do not reset it). A
 *       database that does not answer makes {@link #of} throw, which the indicator reports as down with the error;
 *   <li>{@link State#OUT_OF_SERVICE} when a queue's oldest eligible row is older than
 *       {@code baton.health.max-backlog-age} (or the queue's own {@code max-backlog-age}), or more rows than
 *       {@code baton.health.max-unknown} wait for reconciliation: the host is alive, but the work is not getting done,
 *       and a restart will not fix it;
 *   <li>{@link State#UP} otherwise.
 * </ul>
 *
 * @param state the verdict
 * @param queues every queue's report by name, in declaration order
 * @param problems the reasons for a state other than {@code UP}: the down ones first; empty when up
 */
public record HealthReport(State state, Map<String, QueueReport> queues, List<String> problems) {
    /** The verdicts, named as Spring Boot's statuses. */
    public enum State {
        /** Every queue is polled and keeps up. */
        UP,
        /** A worker is stopped or its polls or commits keep failing. */
        DOWN,
        /** The work is not getting done: an old backlog, or too many unknown sends. */
        OUT_OF_SERVICE
    }

    /** Copies the collections. */
    public HealthReport {
        queues = Collections.unmodifiableMap(new LinkedHashMap<>(queues));
        problems = List.copyOf(problems);
    }

    /**
     * Reads every queue once and judges them by the thresholds.
     *
     * @param queues the application's queues
     * @param properties the thresholds
     * @return the report
     * @throws RuntimeException when the database does not answer (the indicator reports it as down)
     */
    public static HealthReport of(BatonQueues queues, BatonProperties properties) {
        List<QueueReport> reports = queues.read();
        List<String> down = new ArrayList<>();
        List<String> outOfService = new ArrayList<>();
        Map<String, QueueReport> details = new LinkedHashMap<>();
        for (QueueReport r : reports) {
            details.put(r.queue(), r);
            if (r.worker().equals("stopped")) {
                down.add("worker of queue '" + r.queue() + "' is not running");
            }
            int maxFailed = properties.health().maxFailedPolls();
            if (r.failedPolls() >= maxFailed) {
                down.add("worker of queue '" + r.queue() + "': the last " + r.failedPolls()
                        + " polls failed (max-failed-polls " + maxFailed + ")");
            }
            if (r.failedFlushes() >= maxFailed) {
                down.add("worker of queue '" + r.queue() + "': the last " + r.failedFlushes()
                        + " commits of outcomes failed (max-failed-polls " + maxFailed + ")");
            }
            Duration maxAge = properties.queue(r.queue()).maxBacklogAge();
            if (maxAge == null) {
                maxAge = properties.health().maxBacklogAge();
            }
            if (maxAge != null
                    && r.oldestEligibleAge() != null
                    && Duration.parse(r.oldestEligibleAge()).compareTo(maxAge) > 0) {
                outOfService.add("queue '" + r.queue() + "': oldest eligible row is " + r.oldestEligibleAge()
                        + " old, more than " + maxAge);
            }
            Long maxUnknown = properties.health().maxUnknown();
            if (maxUnknown != null && r.unknown() > maxUnknown) {
                outOfService.add("queue '" + r.queue() + "': " + r.unknown()
                        + " rows with an unknown send wait for reconciliation, more than " + maxUnknown);
            }
        }
        State state = !down.isEmpty() ? State.DOWN : !outOfService.isEmpty() ? State.OUT_OF_SERVICE : State.UP;
        List<String> problems = new ArrayList<>(down);
        problems.addAll(outOfService);
        return new HealthReport(state, details, problems);
    }
}
