package dev.baton.spring.boot.health;

import dev.baton.spring.boot.BatonProperties;
import dev.baton.spring.boot.BatonQueues;
import dev.baton.spring.boot.QueueReport;
import dev.baton.spring.boot.actuate.HealthReport;
import org.springframework.boot.health.contributor.AbstractHealthIndicator;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.Status;

/**
 * Baton's health, as {@code baton} under {@code /actuator/health} (Spring Boot 4's health types): one query per queue
 * ({@link QueueReport}), judged as {@link HealthReport} says.
 *
 * <ul>
 *   <li>{@code DOWN} when the database does not answer (the query fails), a queue's worker is stopped while the
 *       application runs, or a worker's last {@code baton.health.max-failed-polls} polls (default 3), or as many of
 *       its commits of outcomes in a row, failed;
 *   <li>{@code OUT_OF_SERVICE} when a queue's oldest eligible row is older than {@code baton.health.max-backlog-age}
 *       (or the queue's own {@code max-backlog-age}), or more rows than {@code baton.health.max-unknown} wait for
 *       reconciliation;
 *   <li>{@code UP} otherwise.
 * </ul>
 *
 * <p>Details: every queue's counts and worker state ({@code queues}), and the reasons for a status other than
 * {@code UP} ({@code problems}). Thread-safe.
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
        HealthReport report = HealthReport.of(queues, properties); // no answer throws: DOWN with the error
        builder.status(
                        switch (report.state()) {
                            case UP -> Status.UP;
                            case DOWN -> Status.DOWN;
                            case OUT_OF_SERVICE -> Status.OUT_OF_SERVICE;
                        })
                .withDetail("queues", report.queues());
        if (!report.problems().isEmpty()) {
            builder.withDetail("problems", report.problems());
        }
    }
}
