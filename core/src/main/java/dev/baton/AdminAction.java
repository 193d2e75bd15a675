package dev.baton;

import java.time.Instant;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * What an operator did through an admin view ({@link DeadLetters}, {@link UnknownSends}), as {@link
 * BatonListener#onAdminAction} reports it after the commit: who, what, to which row, with what result, and when.
 * Immutable.
 *
 * @param kind what was done
 * @param queue the queue's name ({@link ClaimQueue#name()})
 * @param id the row's id, or null for an action on many rows ({@link Kind#REQUEUE_ALL})
 * @param principal who did it, as the caller named it with {@code as(principal)} ({@link DeadLetters#as}, {@link
 *     UnknownSends#as}); null when the view was not given one. A worker's reconciler acts as {@value #RECONCILER}.
 * @param result what the call returned: a {@link TransitionResult} (a requeue), a {@link BulkResult} (a bounded
 *     requeue) or a {@link LeaseResult} (a resolution)
 * @param rows the rows this action moved: 1 or 0 for one row ({@code Applied} or {@code Done}: 1; {@code InDoubt}: 0,
 *     the move may be another call's), the count of a bounded requeue
 * @param at when, by the database clock, read right after the action (null if the driver returned a type Baton does
 *     not read as a timestamp, or the clock could not be read: the action stands)
 */
public record AdminAction(
        Kind kind,
        String queue,
        @Nullable Object id,
        @Nullable String principal,
        Object result,
        long rows,
        @Nullable Instant at) {

    /** The principal of a worker's reconciler ({@link Worker.Builder#reconcile}). */
    public static final String RECONCILER = "reconciler";

    /** What an admin action does. */
    public enum Kind {
        /** One dead row back to the claimable state ({@link DeadLetters#requeue}). */
        REQUEUE,
        /** Up to a limit of dead rows back to the claimable state ({@link DeadLetters#requeueAll}). */
        REQUEUE_ALL,
        /** An unknown send resolved as sent: completed ({@link UnknownSends#resolveSent}). */
        RESOLVE_SENT,
        /** An unknown send resolved as not sent: claimable again, or dead if out of attempts ({@link
         * UnknownSends#resolveNotSent}). */
        RESOLVE_NOT_SENT,
        /** An unknown send given up: dead, marked as maybe sent ({@link UnknownSends#deadLetter}). */
        DEAD_LETTER
    }

    /** Validates. */
    public AdminAction {
        Objects.requireNonNull(kind, "kind");
        Objects.requireNonNull(queue, "queue");
        Objects.requireNonNull(result, "result");
    }

    /** True when the action moved at least one row. */
    public boolean moved() {
        return rows > 0;
    }
}
