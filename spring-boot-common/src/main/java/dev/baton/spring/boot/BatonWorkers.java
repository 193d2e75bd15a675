package dev.baton.spring.boot;

import dev.baton.Baton;
import dev.baton.ClaimQueue;
import dev.baton.ConfigurationException;
import dev.baton.Worker;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.context.SmartLifecycle;

/**
 * Starts a {@link Worker} for every {@link QueueWorker} bean when the context has refreshed (every singleton,
 * Flyway and Liquibase included, is initialized by then) and closes them when it stops, before any bean is destroyed,
 * so before the connection pool closes. Workers stop in parallel, each within its shutdown timeout.
 *
 * <p>Phase {@link #PHASE}: workers start after, and stop before, the embedded web server's graceful shutdown and
 * anything else in a lower phase. Thread-safe.
 */
public final class BatonWorkers implements SmartLifecycle {
    /** The lifecycle phase: {@link SmartLifecycle#DEFAULT_PHASE} minus 512. */
    public static final int PHASE = SmartLifecycle.DEFAULT_PHASE - 512;

    private static final Logger LOG = LoggerFactory.getLogger(BatonWorkers.class);

    private final Baton baton;
    private final BatonProperties properties;
    private final List<QueueWorker<?>> definitions;
    private final Map<String, Worker> running = new LinkedHashMap<>();
    private boolean started;

    /**
     * @param baton the Baton that runs the workers
     * @param properties the settings per queue
     * @param definitions the workers to run
     * @throws IllegalStateException if two definitions name the same queue
     * @throws ConfigurationException if {@code baton.queues.<name>.lease} is set and the queue was built with another
     *     lease: a worker cannot change its queue's lease, so the property would be silently ignored
     */
    public BatonWorkers(Baton baton, BatonProperties properties, List<QueueWorker<?>> definitions) {
        this.baton = baton;
        this.properties = properties;
        this.definitions = List.copyOf(definitions);
        Set<String> names = new HashSet<>();
        for (QueueWorker<?> d : this.definitions) {
            if (!names.add(d.queue().name())) {
                throw new IllegalStateException(
                        "two QueueWorker beans process queue '" + d.queue().name() + "'; declare one per queue");
            }
            checkLease(d.queue(), properties.queue(d.queue().name()).lease());
        }
    }

    /**
     * The lease is the queue's, fixed when it is built: {@code baton.queues.<name>.lease} takes effect only where the
     * queue's definition reads it ({@code properties.queue(name).leaseOr(...)}; for an outbox,
     * {@code Outbox.Options.defaults().lease(...)}). A property the queue does not carry is refused here rather than
     * ignored.
     */
    static void checkLease(ClaimQueue<?> queue, @Nullable Duration configured) {
        if (configured == null || configured.equals(queue.lease())) {
            return;
        }
        String name = queue.name();
        String how = name.startsWith("outbox:")
                ? "build the outbox with it: baton.outbox(table, Outbox.Options.defaults().lease(properties.queue(\""
                        + name + "\").leaseOr(...)))"
                : "read it in the queue's definition: .lease(properties.queue(\"" + name + "\").leaseOr(...))";
        throw new ConfigurationException("baton.queues.\"[" + name + "]\".lease is " + configured + " but queue '"
                + name + "' was built with a lease of " + queue.lease() + "; the lease belongs to the queue, not to"
                + " its worker, so the property is not applied by itself: " + how + ", or remove the property");
    }

    /** The queues of every declared worker, started or not, in declaration order. */
    public List<ClaimQueue<?>> queues() {
        List<ClaimQueue<?>> queues = new ArrayList<>();
        for (QueueWorker<?> d : definitions) {
            queues.add(d.queue());
        }
        return queues;
    }

    /** The running workers by queue name; empty before start and after stop. */
    public synchronized Map<String, Worker> running() {
        return Collections.unmodifiableMap(new LinkedHashMap<>(running));
    }

    /** True for a queue whose worker is disabled by {@code baton.workers.enabled} or its queue's {@code enabled}. */
    public boolean disabled(String queue) {
        return !properties.workers().enabled() || !properties.queue(queue).enabled();
    }

    @Override
    public synchronized void start() {
        if (started) {
            return;
        }
        started = true;
        try {
            for (QueueWorker<?> d : definitions) {
                String name = d.queue().name();
                if (disabled(name)) {
                    LOG.info("Baton worker for queue '{}' is disabled by configuration", name);
                    continue;
                }
                running.put(name, d.start(baton, properties.queue(name)));
            }
        } catch (RuntimeException e) {
            closeAll(); // a bad setting on one queue must not leave the others running unmanaged
            throw e;
        }
    }

    @Override
    public synchronized void stop() {
        closeAll();
    }

    private void closeAll() {
        started = false;
        List<Thread> closing = new ArrayList<>();
        for (Map.Entry<String, Worker> e : running.entrySet()) {
            Worker worker = e.getValue();
            Thread t = new Thread(worker::close, "baton-stop-" + e.getKey());
            t.start();
            closing.add(t);
        }
        boolean interrupted = false;
        for (Thread t : closing) {
            while (true) {
                try {
                    t.join();
                    break;
                } catch (InterruptedException ie) {
                    interrupted = true; // finish closing: the pool closes next
                }
            }
        }
        running.clear();
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public synchronized boolean isRunning() {
        return started;
    }

    @Override
    public int getPhase() {
        return PHASE;
    }
}
