package dev.baton.spring.boot.actuate;

import dev.baton.spring.boot.BatonProperties;
import dev.baton.spring.boot.BatonQueues;
import dev.baton.spring.boot.QueueReport;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.springframework.boot.health.contributor.AbstractHealthIndicator;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.Status;

/**
 * Baton's health, as {@code baton} under {@code /actuator/health}: one query per queue ({@link QueueReport}).
 *
 * <ul>
 *   <li>{@code DOWN} when the database does not answer (the query fails), a queue's worker is stopped while the
 *       application runs (it should be polling), or a worker's last {@code baton.health.max-failed-polls} polls
 *       (default 3) failed ({@link dev.baton.Worker#consecutiveFailedPolls()}: a worker keeps running, and retrying,
 *       while the database refuses its claims, so running is not the same as polling), or as many of its commits of
 *       outcomes failed in a row ({@link dev.baton.Worker#consecutiveFailedFlushes()}: claims that succeed in between
 *       do not reset it);
 *   <li>{@code OUT_OF_SERVICE} when a queue's oldest eligible row is older than {@code baton.health.max-backlog-age}
 *       (or the queue's own {@code max-backlog-age}), or more rows than {@code baton.health.max-unknown} wait for
 *       reconciliation: the host is alive, but the work is not getting done, and a restart will not fix it;
 *   <li>{@code UP} otherwise.
 * </ul>
 *
 * <p>Details: every queue's counts and worker state, and the reasons for a status other than {@code UP}.
 * Thread-safe.
 */
public final class BatonHealthIndicator extends AbstractHealthIndicator {
    private final BatonQueues queues;
    private final BatonProperties properties;

    /**
     * @param queues the application's queues
     * @param properties the thresholds
     */
    public BatonHealthIndicator(BatonQueues queues, BatonProperties properties) {
        super("Baton health check failed");
        this.queues = queues;
        this.properties = properties;
    }

    @Override
    protected void doHealthCheck(Health.Builder builder) {
        List<QueueReport> reports = queues.read(); // a database that does not answer throws: DOWN with the error
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
        Status status = !down.isEmpty() ? Status.DOWN : !outOfService.isEmpty() ? Status.OUT_OF_SERVICE : Status.UP;
        builder.status(status).withDetail("queues", details);
        List<String> problems = new ArrayList<>(down);
        problems.addAll(outOfService);
        if (!problems.isEmpty()) {
            builder.withDetail("problems", problems);
        }
    }
}
