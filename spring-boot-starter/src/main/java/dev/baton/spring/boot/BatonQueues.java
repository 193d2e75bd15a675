package dev.baton.spring.boot;

import dev.baton.ClaimQueue;
import dev.baton.Worker;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

/**
 * The queues the application defines, as beans ({@link ClaimQueue} or {@link QueueWorker}), with the state of this
 * host's worker for each. Read by the health indicator and the {@code baton} endpoint. Thread-safe.
 */
public final class BatonQueues {
    /** The worker state of a queue that is a bean without a {@link QueueWorker}. */
    public static final String NO_WORKER = "none";

    private final BatonWorkers workers;
    private final Supplier<List<ClaimQueue<?>>> queueBeans;

    /**
     * @param workers the workers of the context
     * @param queueBeans the {@link ClaimQueue} beans of the context
     */
    public BatonQueues(BatonWorkers workers, Supplier<List<ClaimQueue<?>>> queueBeans) {
        this.workers = workers;
        this.queueBeans = queueBeans;
    }

    /** Every queue once, by name: those with a worker first, then other queue beans. */
    public Map<String, ClaimQueue<?>> queues() {
        Map<String, ClaimQueue<?>> all = new LinkedHashMap<>();
        for (ClaimQueue<?> q : workers.queues()) {
            all.putIfAbsent(q.name(), q);
        }
        for (ClaimQueue<?> q : queueBeans.get()) {
            all.putIfAbsent(q.name(), q);
        }
        return all;
    }

    /** {@code running}, {@code stopped}, {@code disabled} or {@link #NO_WORKER}. */
    public String workerState(String queue) {
        boolean declared = workers.queues().stream().anyMatch(q -> q.name().equals(queue));
        if (!declared) {
            return NO_WORKER;
        }
        if (workers.disabled(queue)) {
            return "disabled";
        }
        Worker w = workers.running().get(queue);
        return w != null && w.isRunning() ? "running" : "stopped";
    }

    /**
     * Reads every queue's counts, one query per queue.
     *
     * @throws dev.baton.DataAccessException if the database does not answer
     */
    public List<QueueReport> read() {
        List<QueueReport> reports = new ArrayList<>();
        for (ClaimQueue<?> q : queues().values()) {
            reports.add(QueueReport.of(q, workerState(q.name()), q.health()));
        }
        return reports;
    }
}
