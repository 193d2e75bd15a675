package dev.baton.spring.boot.actuate;

import dev.baton.ClaimQueue;
import dev.baton.spring.boot.BatonQueues;
import dev.baton.spring.boot.QueueReport;
import java.util.List;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.boot.actuate.endpoint.annotation.Selector;

/**
 * The {@code baton} Actuator endpoint ({@code /actuator/baton} once exposed with
 * {@code management.endpoints.web.exposure.include}): every queue with its counts and this host's worker state, and
 * ({@code /actuator/baton/{queue}}) one queue's first dead letters and unknown sends with bounded counts. Read-only:
 * the actions (requeue, resolve) are the admin views' ({@link ClaimQueue#deadLetters()}, {@link
 * ClaimQueue#unknownSends()}), for code or a console with its own authentication. Thread-safe.
 */
@Endpoint(id = "baton")
public final class BatonEndpoint {
    private final BatonQueues queues;

    /** @param queues the application's queues */
    public BatonEndpoint(BatonQueues queues) {
        this.queues = queues;
    }

    /**
     * Every queue, one query each.
     *
     * @return the queues' reports, in declaration order
     */
    @ReadOperation
    public List<QueueReport> queues() {
        return queues.read();
    }

    /**
     * One queue's dead letters and unknown sends: the first {@value QueueAdminReport#PAGE} of each and their counts up
     * to {@value QueueAdminReport#COUNT_LIMIT}; four bounded queries.
     *
     * @param queue the queue's name ({@code outbox:<table>} for an outbox)
     * @return the report, or null (404) for a queue the application does not define
     */
    @ReadOperation
    public @Nullable QueueAdminReport queue(@Selector String queue) {
        ClaimQueue<?> q = queues.queues().get(queue);
        return q == null ? null : QueueAdminReport.of(q);
    }
}
