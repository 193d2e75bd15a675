package dev.baton.internal.worker;

import dev.baton.ClaimedRow;
import dev.baton.Decision;
import dev.baton.LeaseResult;
import dev.baton.Outcome;
import dev.baton.StateMachine;
import java.time.Duration;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * The queue as a worker's loop drives it: its claims and fenced writes, its unknown sends as the reconciler resolves
 * them, and what the loop does to a claimed row beyond the row's public methods. The face supplies it.
 *
 * @param <S> the enum of states
 */
public interface LoopQueue<S extends Enum<S>> {
    /** The queue's name. */
    String name();

    /** The queue's state machine. */
    StateMachine<S> machine();

    /** The lease of a claim. */
    Duration lease();

    /** The state of a claimed row. */
    S processingState();

    /** The state of a row whose send was marked, or null without a non-idempotent sink. */
    @Nullable
    S sendingState();

    /** The time a send may take, for a non-idempotent sink. */
    Duration sendTimeout();

    /** Claims up to {@code batchSize} rows. */
    List<ClaimedRow<S>> claim(int batchSize);

    /** Commits the outcomes, together where it can. */
    List<LeaseResult<S>> applyAll(List<Decision<S>> decisions);

    /** Extends one row's lease. */
    LeaseResult<S> heartbeat(ClaimedRow<S> row);

    /** Extends the leases of rows held long. */
    List<LeaseResult<S>> heartbeatAll(List<ClaimedRow<S>> rows);

    /** Marks a row's send before the handler runs (a non-idempotent sink). */
    LeaseResult<S> markSending(ClaimedRow<S> row);

    /** The expiry sweep; the rows it moved. */
    long reclaimExpired();

    /** Ids of unknown sends ready for the reconciler, after {@code afterId} (null: from the lowest), lowest first. */
    List<Object> unknownReady(@Nullable Object afterId, int limit);

    /** Resolves an unknown send with the reconciler's verdict (null: can't tell yet, the row stays unknown). */
    LeaseResult<S> resolveUnknown(Object id, @Nullable Outcome<S> verdict);

    /** Marks the row's lease lost and interrupts its handler; true the first time for the row. */
    boolean leaseLost(ClaimedRow<S> row);

    /** Records the thread running the row's handler, or null when it finished. */
    void handlerThread(ClaimedRow<S> row, @Nullable Thread thread);

    /**
     * How long the queue's rate limit asks this thread's next claim to wait, in nanos, after a claim it cut (its
     * batch's tokens are back then); 0 when it did not cut the last claim on this thread.
     */
    long rateLimitWaitNanos();

    /**
     * Given the shortest gap between two sweeps of the queue in nanoseconds, whether this loop runs the expiry sweep
     * now (the queue's Workers in one process share it).
     */
    boolean takeSweepTurn(long gapNanos);
}
