package dev.baton.spring.boot.actuate;

import dev.baton.spring.boot.BatonQueues;
import dev.baton.spring.boot.QueueReport;
import java.util.List;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;

/**
 * The {@code baton} Actuator endpoint ({@code /actuator/baton} once exposed with
 * {@code management.endpoints.web.exposure.include}): every queue with its counts and this host's worker state.
 * Thread-safe.
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
}
