package dev.baton;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Processes a claim queue: one poller thread claims batches and commits the handlers' outcomes together (one
 * transaction per group, each row fenced by its token), handlers run on an executor with bounded concurrency (or on
 * the poller thread when concurrency is 1 and no executor is given), a scheduler thread extends the leases of rows
 * held longer than the heartbeat interval and returns expired leases to the queue. No exception ends the loop.
 *
 * <pre>{@code
 * Worker worker = baton.worker(sync)
 *     .batchSize(50).concurrency(8)
 *     .handle(row -> {
 *         String guid = thirdParty.create(row.id(), row.idempotencyKey());
 *         return Outcome.complete(Sync.COMPLETED).set("third_party_guid", guid);
 *     })
 *     .start();
 * ...
 * worker.close();   // stops claiming, finishes or releases in-flight rows within the shutdown timeout
 * }</pre>
 *
 * <p>A handler returns an {@link Outcome}; an exception means {@link Outcome#retry} with the exception's message (or,
 * on a non-idempotent sink after the send was recorded, {@link Outcome#unknown}). When a heartbeat finds a row's claim
 * lost, the row's {@link ClaimedRow#leaseLost()} turns true and the handler's thread is interrupted.
 */
public final class Worker implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(Worker.class);
    private static final AtomicInteger SEQUENCE = new AtomicInteger();

    /**
     * The host's code for one claimed row.
     *
     * @param <S> the enum of states
     */
    @FunctionalInterface
    public interface Handler<S extends Enum<S>> {
        /** Processes the row and says what to do with it; may throw. */
        Outcome<S> handle(ClaimedRow<S> row) throws Exception;
    }

    /**
     * Asks the sink whether a send with an unknown outcome happened (non-idempotent sinks).
     *
     * @param <S> the enum of states
     */
    @FunctionalInterface
    public interface Reconciler<S extends Enum<S>> {
        /**
         * Returns {@link Outcome#complete} if the sink has the record, {@link Outcome#release()} if it has not (the
         * row will be sent again), or null if it cannot tell yet.
         */
        Outcome<S> reconcile(Object id) throws Exception;
    }

    private final ClaimQueue<?> queue;
    private final Runner<?> runner;

    private Worker(ClaimQueue<?> queue, Runner<?> runner) {
        this.queue = queue;
        this.runner = runner;
    }

    /** The queue this worker processes. */
    public ClaimQueue<?> queue() {
        return queue;
    }

    /** True until {@link #close()} finished. */
    public boolean isRunning() {
        return runner.pollerThread.isAlive();
    }

    /** Rows claimed and not yet settled. */
    public int inFlight() {
        return runner.inFlight.size();
    }

    /**
     * Stops claiming, lets in-flight handlers finish within the shutdown timeout while committing their outcomes, then
     * releases what is left (fenced) and stops the threads. Idempotent.
     */
    @Override
    public void close() {
        runner.shutdown();
    }

    /**
     * Configures a {@link Worker}. Not thread-safe; {@link #start()} validates it and starts the threads.
     *
     * @param <S> the enum of states
     */
    public static final class Builder<S extends Enum<S>> {
        private final ClaimQueue<S> queue;
        private int batchSize = 10;
        private int concurrency = 1;
        private ExecutorService executor;
        private Duration pollInterval = Duration.ofMillis(500);
        private Duration maxIdleInterval = Duration.ofSeconds(5);
        private Duration heartbeat;
        private Duration shutdownTimeout = Duration.ofSeconds(30);
        private Handler<S> handler;
        private Reconciler<S> reconciler;
        private String name;
        private Duration sweepInterval;

        Builder(ClaimQueue<S> queue) {
            this.queue = queue;
        }

        /** Rows per claim, 1 to the dialect's maximum (default 10). */
        public Builder<S> batchSize(int rows) {
            if (rows < 1 || rows > queue.maxBatchSize()) {
                throw new ConfigurationException("batchSize must be 1.." + queue.maxBatchSize() + ", was " + rows
                        + " (queue '" + queue.name() + "')");
            }
            this.batchSize = rows;
            return this;
        }

        /** Handlers running at once, 1 to 1000 (default 1: handlers run on the poller thread). */
        public Builder<S> concurrency(int handlers) {
            if (handlers < 1 || handlers > 1000) {
                throw new ConfigurationException(
                        "concurrency must be 1..1000, was " + handlers + " (queue '" + queue.name() + "')");
            }
            this.concurrency = handlers;
            return this;
        }

        /** Runs handlers on the host's executor instead of a fixed pool the worker owns (it is not shut down). */
        public Builder<S> executor(ExecutorService executor) {
            this.executor = Objects.requireNonNull(executor, "executor");
            return this;
        }

        /**
         * Wait after a short batch (default 500 ms); when the queue is empty the wait doubles up to {@code maxIdle}
         * (default 5 s). After a full batch the worker claims again at once.
         */
        public Builder<S> pollInterval(Duration interval, Duration maxIdle) {
            Objects.requireNonNull(interval, "interval");
            Objects.requireNonNull(maxIdle, "maxIdle");
            if (interval.isNegative() || interval.isZero() || maxIdle.compareTo(interval) < 0) {
                throw new ConfigurationException(
                        "poll interval must be > 0 and <= maxIdle, was " + interval + " / " + maxIdle);
            }
            this.pollInterval = interval;
            this.maxIdleInterval = maxIdle;
            return this;
        }

        /** How often held leases are extended (default lease / 3); the lease must be at least three heartbeats. */
        public Builder<S> heartbeat(Duration interval) {
            this.heartbeat = Objects.requireNonNull(interval, "interval");
            return this;
        }

        /** How long {@link Worker#close()} waits for running handlers (default 30 s). */
        public Builder<S> shutdownTimeout(Duration timeout) {
            Objects.requireNonNull(timeout, "timeout");
            if (timeout.isNegative()) {
                throw new ConfigurationException("shutdownTimeout must not be negative, was " + timeout);
            }
            this.shutdownTimeout = timeout;
            return this;
        }

        /**
         * How often the worker returns expired leases to the queue and reconciles unknown sends (default: half the
         * lease, between 1 s and 30 s).
         */
        public Builder<S> sweepInterval(Duration interval) {
            Objects.requireNonNull(interval, "interval");
            if (interval.isZero() || interval.isNegative()) {
                throw new ConfigurationException("sweepInterval must be positive, was " + interval);
            }
            this.sweepInterval = interval;
            return this;
        }

        /** The handler; required. */
        public Builder<S> handle(Handler<S> handler) {
            this.handler = Objects.requireNonNull(handler, "handler");
            return this;
        }

        /** Resolves unknown sends (non-idempotent sinks); called for each unknown row at every sweep. */
        public Builder<S> reconcile(Reconciler<S> reconciler) {
            this.reconciler = Objects.requireNonNull(reconciler, "reconciler");
            return this;
        }

        /** A name for threads and logs (default {@code baton-<queue>-<n>}). */
        public Builder<S> name(String name) {
            this.name = Objects.requireNonNull(name, "name");
            return this;
        }

        /**
         * Validates the configuration and starts the worker's threads.
         *
         * @throws ConfigurationException if no handler is set, or the lease is shorter than three heartbeats
         */
        public Worker start() {
            if (handler == null) {
                throw new ConfigurationException("worker for queue '" + queue.name() + "' needs handle(...)");
            }
            Duration beat = heartbeat != null ? heartbeat : queue.lease().dividedBy(3);
            if (beat.isZero() || beat.isNegative()) {
                throw new ConfigurationException("heartbeat must be positive, was " + beat);
            }
            if (queue.lease().compareTo(beat.multipliedBy(3)) < 0) {
                throw new ConfigurationException("lease " + queue.lease() + " is shorter than three heartbeats (" + beat
                        + "); a single slow heartbeat would lose the row (queue '" + queue.name() + "')");
            }
            String n = name != null ? name : "baton-" + queue.name() + "-" + SEQUENCE.incrementAndGet();
            Runner<S> runner = new Runner<>(this, beat, n);
            runner.start();
            return new Worker(queue, runner);
        }
    }

    /** The running machinery, typed by the queue's states. */
    private static final class Runner<S extends Enum<S>> {
        private final ClaimQueue<S> queue;
        private final Handler<S> handler;
        private final Reconciler<S> reconciler;
        private final int batchSize;
        private final int concurrency;
        private final long pollMillis;
        private final long maxIdleMillis;
        private final long heartbeatNanos;
        private final long sweepMillis;
        private final Duration shutdownTimeout;
        private final ExecutorService executor;
        private final boolean ownExecutor;
        private final boolean inline;
        private final boolean sendingMode;
        private final Map<ClaimedRow<S>, Long> inFlight = new ConcurrentHashMap<>();
        private final BlockingQueue<Decision<S>> finished = new LinkedBlockingQueue<>();
        private final ScheduledExecutorService scheduler;
        private final Thread pollerThread;
        private volatile boolean claiming = true;
        private volatile boolean stopping;
        private volatile boolean stopped;

        Runner(Builder<S> b, Duration heartbeat, String name) {
            this.queue = b.queue;
            this.handler = b.handler;
            this.reconciler = b.reconciler;
            this.batchSize = b.batchSize;
            this.concurrency = b.concurrency;
            this.pollMillis = b.pollInterval.toMillis();
            this.maxIdleMillis = b.maxIdleInterval.toMillis();
            this.heartbeatNanos = heartbeat.toNanos();
            this.shutdownTimeout = b.shutdownTimeout;
            this.sweepMillis = b.sweepInterval != null
                    ? b.sweepInterval.toMillis()
                    : Math.max(1000, Math.min(b.queue.lease().toMillis() / 2, 30_000));
            this.sendingMode = queue.sendingState() != null;
            this.inline = b.executor == null && b.concurrency == 1;
            if (b.executor != null) {
                this.executor = b.executor;
                this.ownExecutor = false;
            } else if (!inline) {
                AtomicInteger n = new AtomicInteger();
                this.executor = Executors.newFixedThreadPool(
                        b.concurrency, r -> daemon(r, name + "-handler-" + n.incrementAndGet()));
                this.ownExecutor = true;
            } else {
                this.executor = null;
                this.ownExecutor = false;
            }
            this.scheduler = Executors.newSingleThreadScheduledExecutor(r -> daemon(r, name + "-heartbeat"));
            this.pollerThread = daemon(this::loop, name + "-poller");
        }

        private static Thread daemon(Runnable r, String name) {
            Thread t = new Thread(r, name);
            t.setDaemon(true);
            return t;
        }

        void start() {
            long beatMillis = Math.max(1, TimeUnit.NANOSECONDS.toMillis(heartbeatNanos));
            scheduler.scheduleWithFixedDelay(this::heartbeat, beatMillis, beatMillis, TimeUnit.MILLISECONDS);
            scheduler.scheduleWithFixedDelay(this::sweep, 0, sweepMillis, TimeUnit.MILLISECONDS);
            pollerThread.start();
        }

        // ---- poller

        private void loop() {
            long idle = pollMillis;
            while (!stopped) {
                try {
                    flush();
                    if (!claiming) {
                        if (inFlight.isEmpty()) {
                            return;
                        }
                        awaitFinished(50);
                        continue;
                    }
                    if (inFlight.size() >= concurrency) {
                        awaitFinished(50);
                        continue;
                    }
                    int want = Math.min(batchSize, batchSize + concurrency - inFlight.size());
                    List<ClaimedRow<S>> rows = queue.claim(want);
                    for (ClaimedRow<S> row : rows) {
                        inFlight.put(row, System.nanoTime());
                    }
                    dispatch(rows);
                    if (rows.size() == want) {
                        idle = pollMillis;
                    } else if (rows.isEmpty() && inFlight.isEmpty()) {
                        awaitFinished(idle);
                        idle = Math.min(idle * 2, maxIdleMillis);
                    } else {
                        idle = pollMillis;
                        awaitFinished(pollMillis);
                    }
                } catch (InterruptedException e) {
                    if (stopped) {
                        return;
                    }
                    Thread.interrupted(); // an interrupt meant for a handler running inline; the loop carries on
                } catch (Throwable t) {
                    log.warn("worker for queue '{}' caught an error; continuing", queue.name(), t);
                    queue.engine().fire(l -> l.onWorkerError(queue.name(), t));
                    sleepQuietly(Math.min(idle, 1000));
                }
            }
        }

        private void dispatch(List<ClaimedRow<S>> rows) {
            if (inline) {
                for (ClaimedRow<S> row : rows) {
                    finished.add(new Decision<>(row, run(row)));
                }
                return;
            }
            for (ClaimedRow<S> row : rows) {
                try {
                    executor.execute(() -> finished.add(new Decision<>(row, run(row))));
                } catch (RejectedExecutionException e) {
                    finished.add(new Decision<>(row, Outcome.release()));
                }
            }
        }

        /** Runs the handler for one row; never throws. */
        private Outcome<S> run(ClaimedRow<S> row) {
            if (!claiming || row.leaseLost()) {
                return Outcome.release(); // shutting down, or already lost: the fenced release is harmless
            }
            if (sendingMode) {
                LeaseResult<S> marked;
                try {
                    marked = queue.markSending(row);
                } catch (RuntimeException e) {
                    return Outcome.retry("could not record the send: " + e.getMessage());
                }
                if (!marked.done()) {
                    row.markLeaseLost();
                    return null; // nothing to write: another worker owns the row
                }
            }
            row.handlerThread(Thread.currentThread());
            try {
                Outcome<S> outcome = handler.handle(row);
                if (outcome == null) {
                    return failure(row, "handler returned null");
                }
                return outcome;
            } catch (LeaseLostException e) {
                return null;
            } catch (Exception e) {
                return failure(row, e.getClass().getSimpleName() + ": " + e.getMessage());
            } catch (Error e) {
                log.error("handler for queue '{}' threw an Error on row {}", queue.name(), row.id(), e);
                return failure(row, e.toString());
            } finally {
                row.handlerThread(null);
                Thread.interrupted(); // clear an interrupt from a lease-lost signal before the thread is reused
            }
        }

        private Outcome<S> failure(ClaimedRow<S> row, String reason) {
            // after a recorded send, a failure may have happened after the sink acted: never send it blindly again
            return sendingMode ? Outcome.unknown(reason) : Outcome.retry(reason);
        }

        private void awaitFinished(long millis) throws InterruptedException {
            Decision<S> d = finished.poll(millis, TimeUnit.MILLISECONDS);
            if (d != null) {
                finished.add(d);
            }
        }

        /** Commits every finished outcome in one transaction. */
        private void flush() {
            List<Decision<S>> batch = new ArrayList<>();
            finished.drainTo(batch);
            if (batch.isEmpty()) {
                return;
            }
            List<Decision<S>> writes = new ArrayList<>(batch.size());
            for (Decision<S> d : batch) {
                if (d.outcome() == null) {
                    inFlight.remove(d.row());
                } else {
                    writes.add(d);
                }
            }
            try {
                queue.applyAll(writes);
            } finally {
                for (Decision<S> d : writes) {
                    inFlight.remove(d.row());
                }
            }
        }

        // ---- scheduler

        private void heartbeat() {
            try {
                long now = System.nanoTime(); // local scheduling only: the lease itself is judged by the database
                List<ClaimedRow<S>> due = new ArrayList<>();
                for (Map.Entry<ClaimedRow<S>, Long> e : inFlight.entrySet()) {
                    if (now - e.getValue() >= heartbeatNanos) {
                        due.add(e.getKey());
                    }
                }
                if (due.isEmpty()) {
                    return;
                }
                List<LeaseResult<S>> results = queue.heartbeatAll(due);
                for (int i = 0; i < due.size(); i++) {
                    ClaimedRow<S> row = due.get(i);
                    if (results.get(i).done()) {
                        inFlight.replace(row, now);
                    } else if (inFlight.containsKey(row)) {
                        row.markLeaseLost();
                        queue.engine().fire(l -> l.onLeaseLost(queue.name(), row.id()));
                    }
                }
            } catch (Throwable t) {
                log.warn("heartbeat for queue '{}' failed; will retry", queue.name(), t);
                queue.engine().fire(l -> l.onWorkerError(queue.name(), t));
            }
        }

        private void sweep() {
            try {
                queue.reclaimExpired();
                if (reconciler != null) {
                    for (Object id : queue.unknownRows(100)) {
                        Outcome<S> verdict = reconciler.reconcile(id);
                        if (verdict == null) {
                            continue;
                        }
                        if (verdict.kind() == Outcome.Kind.COMPLETE) {
                            queue.resolveUnknown(id, true, verdict);
                        } else {
                            queue.resolveUnknown(id, false, null);
                        }
                    }
                }
            } catch (Throwable t) {
                log.warn("sweep for queue '{}' failed; will retry", queue.name(), t);
                queue.engine().fire(l -> l.onWorkerError(queue.name(), t));
            }
        }

        // ---- shutdown

        synchronized void shutdown() {
            if (stopped) {
                return;
            }
            claiming = false;
            stopping = true;
            try {
                pollerThread.join(Math.max(1, shutdownTimeout.toMillis()));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            stopped = true;
            if (pollerThread.isAlive()) {
                for (ClaimedRow<S> row : inFlight.keySet()) {
                    row.markLeaseLost(); // interrupts handlers that outlived the timeout
                }
                pollerThread.interrupt();
                try {
                    pollerThread.join(5000);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
            List<Decision<S>> left = new ArrayList<>();
            finished.drainTo(left);
            List<Decision<S>> writes = new ArrayList<>();
            for (Decision<S> d : left) {
                if (d.outcome() != null) {
                    writes.add(d);
                }
                inFlight.remove(d.row());
            }
            for (ClaimedRow<S> row : inFlight.keySet()) {
                writes.add(new Decision<>(row, Outcome.release()));
            }
            try {
                queue.applyAll(writes);
            } catch (RuntimeException e) {
                log.warn(
                        "could not settle {} rows of queue '{}' at shutdown; their leases will expire",
                        writes.size(),
                        queue.name(),
                        e);
            }
            inFlight.clear();
            scheduler.shutdownNow();
            if (ownExecutor) {
                executor.shutdownNow();
            }
        }

        private static void sleepQuietly(long millis) {
            try {
                Thread.sleep(millis);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }

        @Override
        public String toString() {
            return "Worker[" + queue.name() + (stopping ? ", stopping" : "") + "]";
        }
    }
}
