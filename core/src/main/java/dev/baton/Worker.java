package dev.baton;

import dev.baton.internal.queue.LeaseTiming;
import dev.baton.internal.values.TypedValues;
import dev.baton.internal.worker.HandlerChain;
import dev.baton.internal.worker.LoopQueue;
import dev.baton.internal.worker.VirtualThreads;
import dev.baton.internal.worker.WorkerLoop;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/**
 * Processes a claim queue: {@code concurrency} poller threads each claim a batch, run its handlers in turn and commit
 * the outcomes together (a batch's completions in one statement, each row fenced by its token); with an
 * {@link Builder#executor executor}, one poller claims and the executor runs the handlers, at most
 * {@code concurrency} rows handed out at once; with {@link Builder#virtualThreads() virtual threads} (JDK 21+), one
 * poller claims and starts a virtual thread per row, at most {@code concurrency} at once. A scheduler thread extends the leases of rows held longer than the
 * heartbeat interval and returns expired leases to the queue. No exception ends the loop.
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
 *
 * <p>Around every handler call the SLF4J MDC holds {@value #MDC_QUEUE}, {@value #MDC_ID}, {@value #MDC_ATTEMPT} and
 * {@value #MDC_TOKEN} (removed after the call, or given back their earlier values), so every line the handler logs
 * names its row. {@link BatonInterceptor}s run inside them, around the handler.
 */
public final class Worker implements AutoCloseable {
    /** The MDC key of the queue's name, set around each handler call. */
    public static final String MDC_QUEUE = HandlerChain.MDC_QUEUE;
    /** The MDC key of the row's id ({@code String.valueOf(id)}), set around each handler call. */
    public static final String MDC_ID = HandlerChain.MDC_ID;
    /** The MDC key of the attempt number (1 for the first claim), set around each handler call. */
    public static final String MDC_ATTEMPT = HandlerChain.MDC_ATTEMPT;
    /** The MDC key of the claim's fencing token, set around each handler call. */
    public static final String MDC_TOKEN = HandlerChain.MDC_TOKEN;

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
         * row will be sent again), {@link Outcome#deadLetter} to give up (the dead state), or null or
         * {@link Outcome#unknown} if it cannot tell yet (the row stays unknown). Any other verdict is refused with an
         * {@link IllegalVerdictException}, logged, and the row left unknown.
         */
        @Nullable
        Outcome<S> reconcile(Object id) throws Exception;
    }

    /**
     * A {@link Reconciler} that takes the row id typed, for {@link Builder#reconcile(Class, TypedReconciler)}.
     *
     * @param <I> the id type
     * @param <S> the enum of states
     */
    @FunctionalInterface
    public interface TypedReconciler<I, S extends Enum<S>> {
        /** As {@link Reconciler#reconcile(Object)}, with the id read as the type given to the builder. */
        @Nullable
        Outcome<S> reconcile(I id) throws Exception;
    }

    private final ClaimQueue<?> queue;
    private final WorkerLoop<?> runner;

    private Worker(ClaimQueue<?> queue, WorkerLoop<?> runner) {
        this.queue = queue;
        this.runner = runner;
    }

    /** The queue this worker processes. */
    public ClaimQueue<?> queue() {
        return queue;
    }

    /** True until {@link #close()} finished. */
    public boolean isRunning() {
        return runner.isRunning();
    }

    /**
     * Polls that failed in a row: 0 after any claim that succeeded (with rows or without), one more for every turn of
     * a poller's loop that failed (its claim, or the commit of the outcomes that finished before it), over all
     * pollers. {@link #isRunning()} stays true while the database refuses every poll; this count is how a health
     * check tells. Counted, not timed. Thread-safe.
     *
     * @return 0 or more
     */
    public int consecutiveFailedPolls() {
        return runner.consecutiveFailedPolls();
    }

    /**
     * Commits of finished outcomes that failed in a row, over all pollers: set back to 0 only when a commit of
     * outcomes succeeds, never by a claim. A worker whose claims succeed while every commit fails (an outcome setting a
     * column the table lacks, a permission missing) alternates {@link #consecutiveFailedPolls()} between 1 and 0, and
     * its rows are handled again at every lease expiry; this count keeps growing. A health check reads both. Counted,
     * not timed. Thread-safe.
     *
     * @return 0 or more
     */
    public int consecutiveFailedFlushes() {
        return runner.consecutiveFailedFlushes();
    }

    /**
     * Stops claiming new rows (and asking the reconciler) until {@link #resume()}; rows already claimed are handled
     * and committed as usual, their leases kept by heartbeats, and expired leases are still returned to the queue. The
     * threads stay up. Only this worker pauses: other workers of the queue, here or in other processes, go on. For an
     * operator (the console's pause button); idempotent and thread-safe.
     */
    public void pause() {
        runner.paused(true);
    }

    /** Undoes {@link #pause()}: every poller claims again at once. Idempotent and thread-safe. */
    public void resume() {
        runner.paused(false);
    }

    /** True between {@link #pause()} and {@link #resume()}. */
    public boolean isPaused() {
        return runner.isPaused();
    }

    /** Rows claimed and not yet settled. */
    public int inFlight() {
        return runner.inFlight();
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
        private boolean virtualThreads;
        private Duration sweepInterval;
        private final List<BatonInterceptor> interceptors = new ArrayList<>();
        private Function<ClaimedRow<S>, OutboxMessage> messages;

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

        /**
         * Handlers running at once, 1 to 1000 (default 1). Without an executor, each of that many poller threads
         * claims its own batch and runs its handlers itself, so up to {@code concurrency × batchSize} rows are held.
         */
        public Builder<S> concurrency(int handlers) {
            if (handlers < 1 || handlers > 1000) {
                throw new ConfigurationException(
                        "concurrency must be 1..1000, was " + handlers + " (queue '" + queue.name() + "')");
            }
            this.concurrency = handlers;
            return this;
        }

        /**
         * Runs handlers on the host's executor instead of the poller threads: one poller claims and hands the rows to
         * it. The worker does not shut it down. Excludes {@link #virtualThreads()}.
         */
        public Builder<S> executor(ExecutorService executor) {
            this.executor = Objects.requireNonNull(executor, "executor");
            return this;
        }

        /**
         * Runs each handler on a virtual thread of its own (JDK 21 or later; default: the poller threads). One poller,
         * a platform thread, claims and starts a virtual thread per row; {@code concurrency} still bounds the handlers
         * running at once, since each claim takes at most the rows that leave no more than {@code concurrency} in
         * flight (fewer than {@code batchSize} when handlers are busy). Heartbeats and sweeps stay on their platform
         * thread, so handlers that pin every carrier cannot starve them. Handlers that use the database each need a
         * connection of the pool at once: size it to {@code concurrency} plus the worker's own two (claims and
         * commits, heartbeats and sweeps). Excludes {@link #executor(ExecutorService)}.
         *
         * <pre>{@code
         * baton.worker(queue).virtualThreads().concurrency(200).batchSize(50).handle(row -> ...).start();
         * }</pre>
         *
         * @throws ConfigurationException on a JDK before 21 (before any SQL)
         */
        public Builder<S> virtualThreads() {
            VirtualThreads.require("queue '" + queue.name() + "'");
            this.virtualThreads = true;
            return this;
        }

        /**
         * Wait after a short batch (default 500 ms); when the queue is empty the wait doubles up to {@code maxIdle}
         * (default 5 s). After a full batch the worker claims again at once. For a queue with a non-idempotent sink
         * under {@link SendDurability#OFF} or {@link SendDurability#WARN}, {@code maxIdle} must be at most half of
         * {@link EpochChange#HOLD} (5 s; checked by {@link #start()}): after a failover the queue's other processes
         * hold their claims that long so that this worker moves the rows of its lost SENDING marks first.
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

        /**
         * How long {@link Worker#close()} waits for running handlers (default 30 s). Rows still running after it are
         * released if still processing (their attempt given back); a row already marked sending (non-idempotent sink)
         * is never released: it stays held until its lease expires, and the expiry sweep moves it to the unknown
         * state for reconciliation.
         */
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

        /**
         * Resolves unknown sends (non-idempotent sinks); called at every sweep for each unknown row whose quarantine
         * passed ({@link UnknownSends#ready(int)}: its lease, the queue's send timeout and a margin, by the database
         * clock, so that a sender paused after its mark has woken up or is gone), up to 500 rows a sweep, taking up
         * where the last sweep stopped. A reconciler that throws for one row is logged, told to {@link
         * BatonListener#onWorkerError}, and the sweep goes on with the next row; the row stays unknown.
         */
        public Builder<S> reconcile(Reconciler<S> reconciler) {
            this.reconciler = Objects.requireNonNull(reconciler, "reconciler");
            return this;
        }

        /**
         * Adds an interceptor around this worker's handler calls, inside those of {@link Baton.Builder#interceptor}
         * (which every worker gets); interceptors run in the order added, the first outermost.
         */
        public Builder<S> intercept(BatonInterceptor interceptor) {
            interceptors.add(Objects.requireNonNull(interceptor, "interceptor"));
            return this;
        }

        /** How an outbox dispatcher reads a row as a message, for {@link BatonInterceptor.HandlerCall#message()}. */
        Builder<S> messages(Function<ClaimedRow<S>, OutboxMessage> reader) {
            this.messages = reader;
            return this;
        }

        /**
         * Resolves unknown sends as {@link #reconcile(Reconciler)} does, each row id read as {@code idType} (converted
         * as {@link ClaimedRow#id(Class)} converts it; an id that does not convert is logged as the reconciler's error
         * and the row stays unknown).
         *
         * <pre>{@code
         * worker.reconcile(Long.class, orderId -> reconcile(thirdParty, orderId));
         * }</pre>
         */
        public <I> Builder<S> reconcile(Class<I> idType, TypedReconciler<I, S> reconciler) {
            Objects.requireNonNull(idType, "idType");
            Objects.requireNonNull(reconciler, "reconciler");
            return reconcile(id -> reconciler.reconcile(TypedValues.as(id, idType, "id of an unknown send")));
        }

        /** A name for threads and logs (default {@code baton-<queue>-<n>}). */
        public Builder<S> name(String name) {
            this.name = Objects.requireNonNull(name, "name");
            return this;
        }

        /**
         * Validates the configuration and starts the worker's threads.
         *
         * @throws ConfigurationException if no handler is set, the lease is shorter than three heartbeats, {@code
         *     maxIdle} is longer than half of {@link EpochChange#HOLD} for a queue with a non-idempotent sink that is
         *     not under {@link SendDurability#REQUIRE}, or both {@link #virtualThreads()} and {@link
         *     #executor(ExecutorService)} are set
         */
        public Worker start() {
            if (handler == null) {
                throw new ConfigurationException("worker for queue '" + queue.name() + "' needs handle(...)");
            }
            if (virtualThreads && executor != null) {
                throw new ConfigurationException("worker for queue '" + queue.name()
                        + "': virtualThreads() and executor(...) exclude each other; choose one");
            }
            Duration beat = heartbeat != null ? heartbeat : new LeaseTiming(queue.lease()).defaultHeartbeat();
            if (beat.isZero() || beat.isNegative()) {
                throw new ConfigurationException("heartbeat must be positive, was " + beat);
            }
            if (queue.lease().compareTo(beat.multipliedBy(LeaseTiming.HEARTBEATS_PER_LEASE)) < 0) {
                throw new ConfigurationException("lease " + queue.lease() + " is shorter than three heartbeats (" + beat
                        + "); a single slow heartbeat would lose the row (queue '" + queue.name() + "')");
            }
            Duration idleAtMost = EpochChange.HOLD.dividedBy(2);
            if (queue.sendingState() != null
                    && queue.sendDurability() != SendDurability.REQUIRE
                    && maxIdleInterval.compareTo(idleAtMost) > 0) {
                throw new ConfigurationException("maxIdle must be at most " + idleAtMost + " for queue '" + queue.name()
                        + "' (a non-idempotent sink, sendDurability " + queue.sendDurability() + "), was "
                        + maxIdleInterval + ": after a failover another process holds its claims for EpochChange.HOLD ("
                        + EpochChange.HOLD + ") so that this one moves the rows of its lost SENDING marks first, and"
                        + " an idle worker must claim, and reach the new writer, within it");
            }
            String n = name != null ? name : "baton-" + queue.name() + "-" + SEQUENCE.incrementAndGet();
            List<BatonInterceptor> chain = new ArrayList<>(queue.engine().interceptors());
            chain.addAll(interceptors);
            WorkerLoop<S> runner = new WorkerLoop<>(
                    new LoopQueueOf<>(queue),
                    new HandlerChain<>(queue.name(), handler::handle, chain, messages, queue.engine()),
                    reconciler == null ? null : reconciler::reconcile, // a method reference on null throws
                    new WorkerLoop.Settings(
                            batchSize,
                            concurrency,
                            executor,
                            pollInterval,
                            maxIdleInterval,
                            beat,
                            shutdownTimeout,
                            sweepInterval,
                            n,
                            virtualThreads),
                    queue.engine());
            runner.start();
            return new Worker(queue, runner);
        }
    }

    /** The queue as the worker's loop drives it, with the row operations only the loop performs. */
    private static final class LoopQueueOf<S extends Enum<S>> implements LoopQueue<S> {
        private final ClaimQueue<S> queue;
        /** The unknown sends, as the reconciler resolves them (reported as {@link AdminAction#RECONCILER}). */
        private final UnknownSends<S> unknownSends;

        LoopQueueOf(ClaimQueue<S> queue) {
            this.queue = queue;
            this.unknownSends = queue.unknownSends().as(AdminAction.RECONCILER);
        }

        @Override
        public String name() {
            return queue.name();
        }

        @Override
        public StateMachine<S> machine() {
            return queue.machine();
        }

        @Override
        public Duration lease() {
            return queue.lease();
        }

        @Override
        public S processingState() {
            return queue.processingState();
        }

        @Override
        public @Nullable S sendingState() {
            return queue.sendingState();
        }

        @Override
        public Duration sendTimeout() {
            return queue.sendTimeout();
        }

        @Override
        public List<ClaimedRow<S>> claim(int batchSize) {
            return queue.claim(batchSize);
        }

        @Override
        public List<LeaseResult<S>> applyAll(List<Decision<S>> decisions) {
            return queue.applyAll(decisions);
        }

        @Override
        public LeaseResult<S> heartbeat(ClaimedRow<S> row) {
            return queue.heartbeat(row);
        }

        @Override
        public List<LeaseResult<S>> heartbeatAll(List<ClaimedRow<S>> rows) {
            return queue.heartbeatAll(rows);
        }

        @Override
        public LeaseResult<S> markSending(ClaimedRow<S> row) {
            return queue.markSending(row);
        }

        @Override
        public long reclaimExpired() {
            return queue.reclaimExpired();
        }

        @Override
        public List<Object> unknownReady(@Nullable Object afterId, int limit) {
            return afterId == null ? unknownSends.ready(limit) : unknownSends.readyAfter(afterId, limit);
        }

        @Override
        public LeaseResult<S> resolveUnknown(Object id, @Nullable Outcome<S> verdict) {
            return unknownSends.resolve(id, verdict);
        }

        @Override
        public boolean leaseLost(ClaimedRow<S> row) {
            return row.markLeaseLost();
        }

        @Override
        public void handlerThread(ClaimedRow<S> row, @Nullable Thread thread) {
            row.handlerThread(thread);
        }

        @Override
        public long rateLimitWaitNanos() {
            return queue.rateLimitWaitNanos();
        }

        @Override
        public boolean takeSweepTurn(long gapNanos) {
            return queue.takeWorkerSweepTurn(gapNanos);
        }
    }
}
