package dev.baton.spring.boot;

import dev.baton.ClaimQueue;
import dev.baton.Worker;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

/**
 * The queues the application defines, as beans ({@link QueueWorker}, {@link ClaimQueue}, or {@link dev.baton.Outbox},
 * whose queue is named {@code outbox:<table>}), with the state of this host's worker for each. Read by the health
 * indicator, the {@code baton} endpoint and the Micrometer gauges. Thread-safe.
 */
public final class BatonQueues {
    /** The worker state of a queue that is a bean without a {@link QueueWorker}. */
    public static final String NO_WORKER = "none";

    private final BatonWorkers workers;
    private final Supplier<List<ClaimQueue<?>>> queueBeans;

    /**
     * @param workers the workers of the context
     * @param queueBeans the other queues of the context: {@link ClaimQueue} beans and the outboxes' queues
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

    /**
     * Polls of this host's worker for {@code queue} that failed in a row ({@link Worker#consecutiveFailedPolls()}); 0
     * when no worker runs for it.
     */
    public int failedPolls(String queue) {
        Worker w = workers.running().get(queue);
        return w != null && w.isRunning() ? w.consecutiveFailedPolls() : 0;
    }

    /**
     * Commits of outcomes by this host's worker for {@code queue} that failed in a row
     * ({@link Worker#consecutiveFailedFlushes()}); 0 when no worker runs for it.
     */
    public int failedFlushes(String queue) {
        Worker w = workers.running().get(queue);
        return w != null && w.isRunning() ? w.consecutiveFailedFlushes() : 0;
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
            reports.add(QueueReport.of(
                    q, workerState(q.name()), failedPolls(q.name()), failedFlushes(q.name()), q.health()));
        }
        return reports;
    }
}
