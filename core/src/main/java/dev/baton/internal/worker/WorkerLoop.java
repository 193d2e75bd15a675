package dev.baton.internal.worker;

import dev.baton.ClaimedRow;
import dev.baton.Decision;
import dev.baton.IllegalVerdictException;
import dev.baton.LeaseLostException;
import dev.baton.LeaseResult;
import dev.baton.Outcome;
import dev.baton.internal.Engine;
import dev.baton.internal.queue.LeaseTiming;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The running machinery of a {@code Worker}: without an executor, {@code concurrency} poller threads each claim a batch,
 * run its handlers in turn and commit its outcomes together (one fenced statement for a batch of completions), so
 * claims, handlers and commits of different batches overlap as hand-written claim loops on as many threads do; with the
 * host's executor, one poller claims, hands the rows to it and commits what finished; with virtual threads, one poller
 * claims only as many rows as {@code concurrency} leaves free and starts a virtual thread per row. The pollers and the
 * scheduler are platform threads either way. A scheduler thread sends heartbeats and sweeps. No exception ends the loop.
 *
 * @param <S> the enum of states
 */
public final class WorkerLoop<S extends Enum<S>> {
    private static final Logger log = LoggerFactory.getLogger(WorkerLoop.class);

    /**
     * A validated worker configuration.
     *
     * @param batchSize rows per claim
     * @param concurrency handlers at once
     * @param executor the handlers' executor, or null
     * @param pollInterval the pause after a short batch
     * @param maxIdleInterval the longest pause when idle
     * @param heartbeat the heartbeat interval
     * @param shutdownTimeout how long close waits for handlers
     * @param sweepInterval the sweep interval, or null for the default
     * @param name the name of threads and logs
     * @param virtualThreads whether each handler runs on a virtual thread of its own (JDK 21+; no executor then)
     */
    public record Settings(
            int batchSize,
            int concurrency,
            ExecutorService executor,
            Duration pollInterval,
            Duration maxIdleInterval,
            Duration heartbeat,
            Duration shutdownTimeout,
            Duration sweepInterval,
            String name,
            boolean virtualThreads) {}

    private final LoopQueue<S> queue;
    private final RowHandler<S> handler;
    /** The host's reconciler, or null without one. */
    private final @Nullable RowReconciler<S> reconciler;

    private final Engine engine;
    private final int batchSize;
    private final int concurrency;
    private final long pollMillis;
    private final long maxIdleMillis;
    private final long heartbeatNanos;
    private final long sweepMillis;
    private final Duration shutdownTimeout;
    private final ExecutorService executor;
    /** The virtual-thread executor this loop made and shuts down, or null. */
    private final ExecutorService ownExecutor;

    private final boolean inline;
    private final boolean sendingMode;
    private final ScheduledExecutorService scheduler;
    private final List<Poller> pollers;
    private final AtomicInteger failedPolls = new AtomicInteger();
    private final AtomicInteger failedFlushes = new AtomicInteger();
    /** The id after which the next sweep asks the reconciler, or null to start at the lowest; the sweep thread's. */
    private Object reconcileAfter;

    /**
     * The marker {@link #wake()} puts into a poller's queue of finished outcomes, ending its wait; never written. One
     * wake is pending per loop at most, so a burst of wake-ups costs one claim.
     */
    @SuppressWarnings("rawtypes")
    private static final Decision WAKE = new Decision<>(null, null);

    private final AtomicBoolean wakePending = new AtomicBoolean();
    private volatile Runnable unregisterWake;

    private volatile boolean claiming = true;
    private volatile boolean paused;
    private volatile boolean stopping;
    private volatile boolean stopped;

    /** A loop over {@code queue}, not started. */
    public WorkerLoop(
            LoopQueue<S> queue,
            RowHandler<S> handler,
            @Nullable RowReconciler<S> reconciler,
            Settings b,
            Engine engine) {
        String name = b.name();
        Duration heartbeat = b.heartbeat();
        this.queue = queue;
        this.handler = handler;
        this.reconciler = reconciler;
        this.engine = engine;
        this.batchSize = b.batchSize();
        this.concurrency = b.concurrency();
        this.pollMillis = b.pollInterval().toMillis();
        this.maxIdleMillis = b.maxIdleInterval().toMillis();
        this.heartbeatNanos = heartbeat.toNanos();
        this.shutdownTimeout = b.shutdownTimeout();
        this.sweepMillis = b.sweepInterval() != null
                ? b.sweepInterval().toMillis()
                : new LeaseTiming(queue.lease()).defaultSweep().toMillis();
        this.sendingMode = queue.sendingState() != null;
        this.ownExecutor = b.virtualThreads() ? VirtualThreads.perTaskExecutor(name + "-handler-") : null;
        this.executor = ownExecutor != null ? ownExecutor : b.executor();
        this.inline = executor == null;
        this.scheduler = Executors.newSingleThreadScheduledExecutor(r -> daemon(r, name + "-heartbeat"));
        int n = inline ? concurrency : 1;
        List<Poller> ps = new ArrayList<>(n);
        for (int i = 1; i <= n; i++) {
            ps.add(new Poller(name + "-poller" + (n == 1 ? "" : "-" + i)));
        }
        this.pollers = List.copyOf(ps);
    }

    /**
     * One claim loop: its batches' finished outcomes, how many of its rows are claimed and not yet committed, and those
     * rows with the time of their claim or last heartbeat. Nothing a poller touches per row or per batch is shared with
     * the loop's other pollers (the scheduler reads the rows for heartbeats), so one loop of n pollers costs what n
     * loops of one cost.
     */
    private final class Poller {
        final BlockingQueue<Decision<S>> finished = new LinkedBlockingQueue<>();
        final AtomicInteger held = new AtomicInteger();
        /** The poller's claimed rows not yet settled, with their claim's or last heartbeat's {@code nanoTime}. */
        final Map<ClaimedRow<S>, Long> inFlight = new ConcurrentHashMap<>();

        final Thread thread;
        /** True while the poller waits between claims. */
        volatile boolean waiting;

        Poller(String name) {
            this.thread = daemon(() -> loop(this), name);
        }
    }

    private static Thread daemon(Runnable r, String name) {
        Thread t = new Thread(r, name);
        t.setDaemon(true);
        return t;
    }

    /** Starts the poller and the scheduler. */
    public void start() {
        long beatMillis = Math.max(1, TimeUnit.NANOSECONDS.toMillis(heartbeatNanos));
        scheduler.scheduleWithFixedDelay(this::heartbeat, beatMillis, beatMillis, TimeUnit.MILLISECONDS);
        scheduler.scheduleWithFixedDelay(this::sweep, 0, sweepMillis, TimeUnit.MILLISECONDS);
        for (Poller p : pollers) {
            p.thread.start();
        }
        unregisterWake = engine.wakeups().register(queue.name(), this::wake);
    }

    /**
     * Ends the wait of one poller so that it claims now: one that waits, if any, else the first (its next wait ends at
     * once). A wake while one is pending changes nothing. Called after a commit made rows claimable (in this JVM, or a
     * notification from another process), and by a poller whose claim came back full while another waits, so that it
     * joins in.
     */
    @SuppressWarnings("unchecked")
    public void wake() {
        if (stopping || !wakePending.compareAndSet(false, true)) {
            return;
        }
        Poller target = pollers.get(0);
        for (Poller p : pollers) {
            if (p.waiting) {
                target = p;
                break;
            }
        }
        target.finished.add(WAKE);
    }

    /**
     * True when a poller waits between claims. A full batch wakes only such a poller: when none waits, every poller
     * claims again right after its commit anyway, and a marker for one of them would only cost a shared write per
     * batch (the flag, the marker in that poller's queue, its removal at the next commit). A poller that starts to
     * wait just after this read is woken by the next full batch.
     */
    private boolean anyWaiting() {
        for (Poller p : pollers) {
            if (p.waiting) {
                return true;
            }
        }
        return false;
    }

    /**
     * Sets a counter shared by the pollers back to 0, writing it only when it is not 0 already: every poller resets it
     * after each claim or commit, and an unconditional write would move the counter's cache line between cores each
     * time.
     */
    private static void resetIfSet(AtomicInteger counter) {
        if (counter.get() != 0) {
            counter.set(0);
        }
    }

    // ---- poller

    private void loop(Poller p) {
        long idle = pollMillis;
        long tokensAt = 0; // after a claim the rate limit cut: when its batch's tokens are back (nanoTime), else 0
        while (!stopped) {
            try {
                flush(p);
                if (!claiming) {
                    if (p.held.get() == 0) {
                        return;
                    }
                    awaitFinished(p, 50);
                    continue;
                }
                if (paused) {
                    awaitFinished(p, Math.min(pollMillis, 100)); // in-flight rows finish and commit meanwhile
                    continue;
                }
                if (!inline && p.held.get() >= concurrency) {
                    awaitFinished(p, 50);
                    continue;
                }
                if (tokensAt != 0) {
                    // not before the tokens are back: a claim now would only queue on the bucket's row lock for none
                    long left = TimeUnit.NANOSECONDS.toMillis(tokensAt - System.nanoTime());
                    if (left > 0) {
                        awaitFinished(p, left);
                        continue;
                    }
                    tokensAt = 0;
                }
                // a thread per task has no pool to bound it: a claim takes only the rows free handlers can start, so
                // that no more than concurrency handlers ever run at once (a host's pool bounds its own)
                int want = ownExecutor != null ? Math.min(batchSize, concurrency - p.held.get()) : batchSize;
                List<ClaimedRow<S>> rows = queue.claim(want);
                long rateWait = queue.rateLimitWaitNanos();
                resetIfSet(failedPolls);
                Long now = System.nanoTime(); // boxed once for the batch, not once per row
                for (ClaimedRow<S> row : rows) {
                    p.inFlight.put(row, now);
                }
                p.held.addAndGet(rows.size());
                dispatch(p, rows);
                if (rows.size() == want) {
                    idle = pollMillis;
                    if (pollers.size() > 1 && anyWaiting()) {
                        wake(); // more may wait: a poller that waits claims too, at once
                    }
                } else if (rateWait > 0) {
                    idle = pollMillis;
                    tokensAt = System.nanoTime() + rateWait;
                } else if (rows.isEmpty() && p.held.get() == 0) {
                    awaitFinished(p, idle);
                    idle = Math.min(idle * 2, maxIdleMillis);
                } else {
                    idle = pollMillis;
                    awaitFinished(p, pollMillis);
                }
            } catch (InterruptedException e) {
                if (stopped) {
                    return;
                }
                Thread.interrupted(); // an interrupt meant for a handler running inline; the loop carries on
            } catch (Throwable t) {
                failedPolls.incrementAndGet();
                log.warn("worker for queue '{}' caught an error; continuing", queue.name(), t);
                engine.events().fire(l -> l.onWorkerError(queue.name(), t));
                sleepQuietly(Math.min(idle, 1000));
            }
        }
    }

    private void dispatch(Poller p, List<ClaimedRow<S>> rows) {
        if (inline) {
            for (ClaimedRow<S> row : rows) {
                p.finished.add(new Decision<>(row, run(row)));
            }
            return;
        }
        for (ClaimedRow<S> row : rows) {
            try {
                executor.execute(() -> p.finished.add(new Decision<>(row, run(row))));
            } catch (RejectedExecutionException e) {
                p.finished.add(new Decision<>(row, Outcome.release()));
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
                Duration left = row.remaining();
                if (left.compareTo(queue.sendTimeout()) < 0 && !left.isNegative() && !left.isZero()) {
                    // a heartbeat that came late: renew first, so that a healthy worker is not refused its send
                    LeaseResult<S> beat = queue.heartbeat(row);
                    if (!beat.done()) {
                        lost(row, "its heartbeat before the send found it reclaimed");
                        return null;
                    }
                }
                marked = queue.markSending(row);
            } catch (RuntimeException e) {
                return Outcome.retry("could not record the send: " + e.getMessage());
            }
            if (marked instanceof LeaseResult.TooLate<S> late && row.sendingMarked()) {
                // the mark committed but took so long that the send could outlive the lease: nothing was sent, yet the
                // row is sending, which only the unknown state leaves (the reconciler will find nothing sent)
                log.warn(
                        "queue '{}': row {} not sent: its mark left {} ms before the claim's local deadline, the send"
                                + " needs {} ms",
                        queue.name(),
                        row.id(),
                        late.remaining().toMillis(),
                        queue.sendTimeout().toMillis());
                return Outcome.unknown("not sent: the mark left less than the send timeout before the lease's end");
            }
            if (marked instanceof LeaseResult.TooLate<S> late) {
                // the claim's local deadline passed (this process may have been paused past its lease) or the send
                // would outlive it: nothing was sent or marked, so give the row back while it is still ours
                log.warn(
                        "queue '{}': row {} not sent: {} ms left before the claim's local deadline, the send needs {} ms;"
                                + " releasing it",
                        queue.name(),
                        row.id(),
                        late.remaining().toMillis(),
                        queue.sendTimeout().toMillis());
                return Outcome.release();
            }
            if (!marked.done()) {
                lost(row, "the mark before its send found it reclaimed");
                return null; // nothing to write: another worker owns the row
            }
        }
        queue.handlerThread(row, Thread.currentThread());
        try {
            Outcome<S> outcome = handler.handle(row);
            if (outcome == null) {
                return failure(row, "handler returned null");
            }
            return legal(outcome);
        } catch (LeaseLostException e) {
            return null;
        } catch (Exception e) {
            return failure(row, e.getClass().getSimpleName() + ": " + e.getMessage());
        } catch (Error e) {
            log.error("handler for queue '{}' threw an Error on row {}", queue.name(), row.id(), e);
            return failure(row, e.toString());
        } finally {
            queue.handlerThread(row, null);
            Thread.interrupted(); // clear an interrupt from a lease-lost signal before the thread is reused
        }
    }

    /**
     * A completion into a state the machine does not allow from the held states would be refused for the whole
     * batch: refused here, before SQL, it dead-letters this row only.
     */
    private Outcome<S> legal(Outcome<S> outcome) {
        if (outcome.kind() != Outcome.Kind.COMPLETE) {
            return outcome;
        }
        S target = outcome.target();
        boolean allowed = queue.machine().canTransition(queue.processingState(), target)
                && (!sendingMode || queue.machine().canTransition(queue.sendingState(), target));
        return allowed
                ? outcome
                : Outcome.deadLetter("the handler returned " + outcome + ", which the machine does not allow from "
                        + queue.processingState() + (sendingMode ? " and " + queue.sendingState() : ""));
    }

    private Outcome<S> failure(ClaimedRow<S> row, String reason) {
        // after a recorded send, a failure may have happened after the sink acted: never send it blindly again
        return sendingMode ? Outcome.unknown(reason) : Outcome.retry(reason);
    }

    private void awaitFinished(Poller p, long millis) throws InterruptedException {
        p.waiting = true;
        Decision<S> d;
        try {
            d = p.finished.poll(millis, TimeUnit.MILLISECONDS);
        } finally {
            p.waiting = false;
        }
        if (d == WAKE) {
            wakePending.set(false);
        } else if (d != null) {
            p.finished.add(d);
        }
    }

    /** Commits every finished outcome of {@code p} together. */
    private void flush(Poller p) {
        List<Decision<S>> batch = new ArrayList<>();
        p.finished.drainTo(batch);
        if (batch.removeIf(d -> d == WAKE)) {
            wakePending.set(false); // the claim that follows is the one the wake asked for
        }
        if (batch.isEmpty()) {
            return;
        }
        p.held.addAndGet(-batch.size());
        List<Decision<S>> writes = new ArrayList<>(batch.size());
        for (Decision<S> d : batch) {
            if (d.outcome() == null) {
                p.inFlight.remove(d.row());
            } else {
                writes.add(d);
            }
        }
        try {
            queue.applyAll(writes);
            resetIfSet(failedFlushes);
        } catch (RuntimeException e) {
            failedFlushes.incrementAndGet(); // a claim that succeeds in between does not reset it
            throw e;
        } finally {
            for (Decision<S> d : writes) {
                p.inFlight.remove(d.row());
            }
        }
    }

    // ---- scheduler

    private void heartbeat() {
        try {
            long now = System.nanoTime(); // local scheduling only: the lease itself is judged by the database
            List<ClaimedRow<S>> due = new ArrayList<>();
            List<Map<ClaimedRow<S>, Long>> owners = new ArrayList<>(); // the map of the poller holding each due row
            for (Poller p : pollers) {
                for (Map.Entry<ClaimedRow<S>, Long> e : p.inFlight.entrySet()) {
                    if (now - e.getValue() >= heartbeatNanos) {
                        due.add(e.getKey());
                        owners.add(p.inFlight);
                    }
                }
            }
            if (due.isEmpty()) {
                return;
            }
            List<LeaseResult<S>> results = queue.heartbeatAll(due);
            for (int i = 0; i < due.size(); i++) {
                ClaimedRow<S> row = due.get(i);
                Map<ClaimedRow<S>, Long> inFlight = owners.get(i);
                if (results.get(i).done()) {
                    inFlight.replace(row, now);
                } else if (inFlight.remove(row) != null) {
                    // out of the heartbeat set: the loss is counted once, not at every tick while the handler runs
                    // the flush still settles the row's outcome, fenced
                    lost(row, "a heartbeat found it reclaimed");
                }
            }
        } catch (Throwable t) {
            log.warn("heartbeat for queue '{}' failed; will retry", queue.name(), t);
            engine.events().fire(l -> l.onWorkerError(queue.name(), t));
        }
    }

    /** Marks the row's lease lost; the first time for the claim, logs it and tells the listeners. */
    private void lost(ClaimedRow<S> row, String how) {
        if (queue.leaseLost(row)) {
            log.warn(
                    "queue '{}': lease lost on row {} (attempt {}): {}; its handler is interrupted and its outcome will"
                            + " not be written",
                    queue.name(),
                    row.id(),
                    row.attempt(),
                    how);
            engine.events().fire(l -> l.onLeaseLost(queue.name(), row.id()));
        }
    }

    private void sweep() {
        try {
            // every Worker ticks at its interval; a sweep by another Worker of the queue within half of it counts as
            // this one's: the queue is swept at most twice per interval, and never left unswept for more than one
            // and a half
            if (queue.takeSweepTurn(TimeUnit.MILLISECONDS.toNanos(sweepMillis) / 2)) {
                queue.reclaimExpired();
            }
        } catch (Throwable t) {
            log.warn("sweep for queue '{}' failed; will retry", queue.name(), t);
            engine.events().fire(l -> l.onWorkerError(queue.name(), t));
        }
        if (reconciler != null && !paused) {
            try {
                reconcile();
            } catch (Throwable t) {
                log.warn("reconciliation for queue '{}' failed; will retry", queue.name(), t);
                engine.events().fire(l -> l.onWorkerError(queue.name(), t));
            }
        }
    }

    /** Rows asked per page, and at most per sweep. */
    private static final int RECONCILE_PAGE = 100;

    private static final int RECONCILE_MAX = 500;

    /**
     * Asks the reconciler about the unknown sends past their quarantine, page by page after the last row asked, so
     * that rows whose verdict is "can't tell yet" or whose reconcile call fails never hold up the others: each row is settled on its own, and the next sweep takes up after the last row asked (from the lowest once
     * the end is reached).
     */
    private void reconcile() {
        Object after = reconcileAfter;
        int asked = 0;
        while (asked < RECONCILE_MAX && !stopped) {
            List<Object> page = queue.unknownReady(after, RECONCILE_PAGE);
            for (Object id : page) {
                reconcileOne(id);
                after = id;
                asked++;
            }
            if (page.size() < RECONCILE_PAGE) {
                after = null; // the end: the next sweep starts again at the lowest id
                break;
            }
        }
        reconcileAfter = after;
    }

    private void reconcileOne(Object id) {
        Outcome<S> verdict;
        try {
            // sent, not sent, give up, or can't tell yet (null/unknown: the row stays unknown)
            verdict = reconciler.reconcile(id);
        } catch (Throwable t) {
            log.warn("reconciler for queue '{}' failed on row {}; the row stays unknown", queue.name(), id, t);
            engine.events().fire(l -> l.onWorkerError(queue.name(), t));
            return;
        }
        try {
            LeaseResult<S> r = queue.resolveUnknown(id, verdict);
            if (verdict != null && verdict.kind() != Outcome.Kind.UNKNOWN) {
                log.info(
                        "queue '{}': reconciled unknown send {}: {} -> {}",
                        queue.name(),
                        id,
                        verdict,
                        r instanceof LeaseResult.Done<S> d ? d.state() : "no longer unknown, left alone");
            }
        } catch (IllegalVerdictException e) {
            // any other verdict (a retry) is refused and the row left untouched
            log.error("reconciler for queue '{}': {}", queue.name(), e.getMessage());
            engine.events().fire(l -> l.onWorkerError(queue.name(), e));
        } catch (RuntimeException e) {
            log.warn("could not resolve unknown send {} of queue '{}'; it stays unknown", id, queue.name(), e);
            engine.events().fire(l -> l.onWorkerError(queue.name(), e));
        }
    }

    // ---- shutdown

    /** True until every poller ended. */
    public boolean isRunning() {
        for (Poller p : pollers) {
            if (p.thread.isAlive()) {
                return true;
            }
        }
        return false;
    }

    /**
     * Polls that failed since the last claim that succeeded, over all pollers: a poll is one turn of a poller's loop
     * (commit the outcomes that finished, claim a batch), and any claim that returns (with rows or without) sets it
     * back to 0. Counted, never timed: no JVM clock is read to judge it.
     */
    public int consecutiveFailedPolls() {
        return failedPolls.get();
    }

    /**
     * Commits of finished outcomes that failed in a row, over all pollers: set back to 0 only by a commit of outcomes
     * that succeeds, so a worker whose claims succeed while every commit fails keeps counting.
     */
    public int consecutiveFailedFlushes() {
        return failedFlushes.get();
    }

    /** Stops (true) or restarts (false) claiming and reconciling; heartbeats, commits and expiry sweeps go on. */
    @SuppressWarnings("unchecked")
    public void paused(boolean pause) {
        paused = pause;
        if (!pause && !stopping) {
            for (Poller p : pollers) {
                p.finished.add(WAKE); // claim at once, not after the paused wait
            }
        }
    }

    /** True while paused. */
    public boolean isPaused() {
        return paused;
    }

    /** Rows claimed and not yet settled. */
    public int inFlight() {
        int n = 0;
        for (Poller p : pollers) {
            n += p.inFlight.size();
        }
        return n;
    }

    /** Stops claiming, settles or releases in-flight rows within the shutdown timeout, stops the threads. */
    @SuppressWarnings("unchecked")
    public synchronized void shutdown() {
        if (stopped) {
            return;
        }
        claiming = false;
        stopping = true;
        Runnable unregister = unregisterWake;
        if (unregister != null) {
            unregister.run();
        }
        for (Poller p : pollers) {
            p.finished.add(WAKE); // ends a wait between polls now, not after it (up to maxIdle)
        }
        long deadline = System.nanoTime() + Math.max(1, shutdownTimeout.toMillis()) * 1_000_000L;
        try {
            for (Poller p : pollers) {
                p.thread.join(Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime())));
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        stopped = true;
        if (isRunning()) {
            for (Poller p : pollers) {
                for (ClaimedRow<S> row : p.inFlight.keySet()) {
                    queue.leaseLost(row); // interrupts handlers that outlived the timeout; not a loss to count
                }
            }
            for (Poller p : pollers) {
                p.thread.interrupt();
            }
            try {
                for (Poller p : pollers) {
                    p.thread.join(5000);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        if (ownExecutor != null) {
            ownExecutor.shutdownNow(); // no handler is left to wait for; one that outlived the timeout was interrupted
        }
        List<Decision<S>> writes = new ArrayList<>();
        for (Poller p : pollers) {
            List<Decision<S>> left = new ArrayList<>();
            p.finished.drainTo(left);
            left.removeIf(d -> d == WAKE);
            for (Decision<S> d : left) {
                if (d.outcome() != null) {
                    writes.add(d);
                }
                p.inFlight.remove(d.row());
            }
        }
        // Rows still in flight are released, but a release moves only rows still PROCESSING: a row already marked
        // SENDING (its call may be under way) is left to its lease, and the expiry sweep moves it to UNKNOWN.
        for (Poller p : pollers) {
            for (ClaimedRow<S> row : p.inFlight.keySet()) {
                writes.add(new Decision<>(row, Outcome.release()));
            }
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
        for (Poller p : pollers) {
            p.inFlight.clear();
        }
        // a sweep under way (a reconciler's call, its verdict's write) ends before close() returns, since the host may
        // close its data source next; no new one starts. Interrupted only if it outlives the wait.
        scheduler.shutdown();
        try {
            long wait = Math.max(1000, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime()));
            if (!scheduler.awaitTermination(wait, TimeUnit.MILLISECONDS)) {
                log.warn("queue '{}': a sweep outlived the shutdown timeout; interrupting it", queue.name());
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        scheduler.shutdownNow();
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
