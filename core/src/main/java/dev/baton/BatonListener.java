package dev.baton;

import org.jspecify.annotations.Nullable;

/**
 * Observes what Baton did, after it committed. Every method has a no-op default, so a listener implements only what
 * it needs. Listeners run on the thread that did the work, after the commit; they observe and must not block for
 * long. An exception thrown by a listener is caught and logged: it never undoes or fails the operation.
 *
 * <p>Operations on a caller's {@link java.sql.Connection} do not fire listeners: Baton does not know when, or
 * whether, the caller commits. Data-source operations that join a host transaction (see {@link Baton}, e.g.
 * Spring's with {@code baton-spring}) fire after that transaction commits, on the committing thread, and never if it
 * rolls back; so do those inside {@link Baton#inTransaction}.
 */
public interface BatonListener {

    /** What a fenced write about a claimed row settled it as (see {@link #onSettled}). */
    enum Settled {
        /** Completed into a state the handler chose. */
        COMPLETED,
        /** Back to the claimable state, due after the backoff. */
        RETRIED,
        /** Moved to the dead state (why: {@link #onDeadLetter}). */
        DEAD_LETTERED,
        /** Given back to the claimable state with its attempt. */
        RELEASED,
        /** Moved to the unknown state of a non-idempotent sink. */
        UNKNOWN,
        /** Nothing written: the claim was no longer held (the fenced write was refused). */
        LEASE_LOST
    }

    /** Why rows reached the dead state (see {@link #onDeadLetter}). */
    enum DeadLetterReason {
        /** The handler asked for it ({@link Outcome#deadLetter}, or a completion the machine does not allow). */
        HANDLER,
        /** A retry after the last attempt, or a claimable row found with its attempts used up (the sweep). */
        RETRIES_EXHAUSTED,
        /** The database refused the handler's outcome (a constraint, a value out of range). */
        REFUSED_BY_DATABASE,
        /** The lease expired on the last attempt (the handler crashed or outlived its lease every time). */
        LEASE_EXPIRED,
        /** A reconciler gave up on an unknown send. */
        RECONCILER
    }

    /** Which fenced write the database refused because the claim was no longer held. */
    enum FencedWrite {
        /** A handler's outcome (complete, retry, dead letter, release, unknown). */
        OUTCOME,
        /** A lease extension. */
        HEARTBEAT,
        /** The mark before a non-idempotent send. */
        SEND
    }

    /** A single-row transition finished with {@code result} (any outcome). */
    default void onTransition(String table, TransitionResult<?> result) {}

    /** A bulk transition moved {@code rows} rows of {@code table} into {@code target} in {@code batches} batches. */
    default void onBulkTransition(String table, Enum<?> target, long rows, int batches) {}

    /** Rows were claimed from a queue (count ≥ 1). */
    default void onClaim(String queue, int count) {}

    /** An outcome was applied to a claimed row; {@code state} is where it went, {@code attempt} which claim it was. */
    default void onOutcome(String queue, Object id, Outcome.Kind kind, Enum<?> state, int attempt) {}

    /** A fenced write found the claim lost: the row was reclaimed by another worker (or released). */
    default void onLeaseLost(String queue, Object id) {}

    /** Rows whose lease expired were returned to the claimable state. */
    default void onReclaim(String queue, long rows) {}

    /** Rows whose lease expired while sending were moved to the unknown state, awaiting reconciliation. */
    default void onUnknownSends(String queue, long rows) {}

    /**
     * The SENDING mark of row {@code id} was committed but no standby had it within the queue's wait ({@link
     * ClaimQueueBuilder#sendDurability}): with {@link SendDurability#REQUIRE} the send was refused, with {@link
     * SendDurability#WARN} it went out anyway. Not called for {@link SendDurability#OFF}, which never checks.
     */
    default void onSendNotDurable(String queue, Object id, SendDurability policy) {}

    /**
     * A transition or transaction that Baton committed was not known to be on a standby within the wait ({@link
     * Baton.Builder#commitDurability}): it is applied on the writer, and a failover may lose it. With {@link
     * CommitDurability#REQUIRE} the caller got {@link TransitionResult.InDoubt} (or {@link CommitNotDurableException}),
     * with {@link CommitDurability#WARN} its usual answer. Called in the caller's thread, after the commit; not for
     * {@link CommitDurability#OFF}.
     *
     * @param operation what committed, e.g. {@code "transition payments id 7 to PAID"}
     * @param policy the instance's policy
     * @param reason why the commit is not known durable
     */
    default void onCommitNotDurable(String operation, CommitDurability policy, String reason) {}

    /**
     * A claim from {@code queue} found a new writer (the database's epoch changed: a failover) and moved the rows whose
     * SENDING marks were lost with the old writer to the unknown state: {@link EpochChange#lostMarks()} sends are in
     * doubt and go to reconciliation. Called once per change, per queue and data source in the process, on the thread
     * of the claim that saw it, after the rows moved (at once also for a claim in a caller's transaction: the move
     * commits on a connection of its own).
     */
    default void onEpochChange(EpochChange change) {}

    /**
     * The failover audit ({@link Baton.Builder#failoverAudit}) saw the writer's epoch change and looked up the
     * transitions of one table that this instance applied within its window: {@link TransitionsInDoubt#lost()} of
     * them were lost with the old writer. Called on the audit's thread, once per table and epoch change.
     */
    default void onTransitionsInDoubt(TransitionsInDoubt report) {}

    /** A worker loop caught an exception and carries on. */
    default void onWorkerError(String queue, Throwable error) {}

    /** A transient failure is being retried (attempt is the attempt that failed, 1-based). */
    default void onTransientRetry(String operation, int attempt, java.sql.SQLException cause) {}

    /**
     * A fenced write settled a claimed row of {@code queue} (one call per row, after the commit): what happened, not
     * what the handler asked for (a retry after the last attempt arrives as {@link Settled#DEAD_LETTERED}).
     */
    default void onSettled(String queue, Object id, int attempt, Settled settled) {}

    /** {@code rows} rows of {@code queue} reached the dead state, for {@code reason}; after the commit. */
    default void onDeadLetter(String queue, long rows, DeadLetterReason reason) {}

    /** The database refused a fenced write of {@code write} kind to row {@code id}: its claim was no longer held. */
    default void onFencedWriteRefused(String queue, Object id, FencedWrite write) {}

    /**
     * A worker's handler returned (or threw) for a claimed row; called on the handler's thread right after the
     * handler, before its outcome is committed (a commit the fence refuses is reported by {@link #onSettled}).
     *
     * @param outcome what the handler returned, or null if it threw or returned null
     * @param failure what it threw, or null
     * @param took how long the handler ran
     */
    default void onHandled(
            String queue,
            Object id,
            int attempt,
            @Nullable Outcome<?> outcome,
            @Nullable Throwable failure,
            java.time.Duration took) {}

    /**
     * A message was stored in {@code outbox} (its table) by an operation on the data source, after the commit. An
     * enqueue on a caller's connection fires nothing (the caller commits); a duplicate fires nothing.
     */
    default void onEnqueued(String outbox, String topic, long id) {}

    /**
     * An outbox dispatcher's sink accepted {@code message}; called on the dispatcher's handler thread after the sink
     * returned, before the delivery is committed (a message whose commit is fenced out is delivered and reported
     * again: delivery is at least once). The lag is {@code now - createdAt} by the listener's clock: Baton itself
     * never reads the JVM's clock.
     *
     * @param createdAt the message's {@code created_at}, stamped by the database clock (null if the driver returned
     *     a type Baton does not read as a timestamp)
     */
    default void onDelivered(String outbox, OutboxMessage message, java.time.@Nullable Instant createdAt) {}

    /**
     * An operator's action through an admin view ({@link DeadLetters}, {@link UnknownSends}) finished: who, what, which
     * row, the result and when ({@link AdminAction}). Called once per call that reached the database, after its commit,
     * whatever the result (a requeue that found the row gone reports {@code NotFound}); a call refused before any SQL,
     * or one that threw, reports nothing. A resolution whose verdict writes nothing (can't tell yet) reports nothing.
     */
    default void onAdminAction(AdminAction action) {}
}
