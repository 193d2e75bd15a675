package dev.baton;

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

    /** A worker loop caught an exception and carries on. */
    default void onWorkerError(String queue, Throwable error) {}

    /** A transient failure is being retried (attempt is the attempt that failed, 1-based). */
    default void onTransientRetry(String operation, int attempt, java.sql.SQLException cause) {}
}
