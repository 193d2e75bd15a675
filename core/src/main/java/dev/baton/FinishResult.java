package dev.baton;

import java.util.Objects;

/**
 * What {@link IdempotencyKeys#complete complete} or {@link IdempotencyKeys#fail fail} did. Returned, never thrown:
 *
 * <ul>
 *   <li>{@link Finished}: the key is now completed with the response, or released so that the next request starts
 *       afresh;
 *   <li>{@link LeaseLost}: the token no longer owns the key (its lease expired and another request took the key over,
 *       or the key was deleted by retention cleanup); nothing was changed, and the other owner's work stands.
 * </ul>
 */
public sealed interface FinishResult {

    /** The token the call was made with. */
    IdempotencyToken token();

    /** True for {@link Finished}. */
    default boolean finished() {
        return this instanceof Finished;
    }

    /**
     * The key was completed or released as asked.
     *
     * @param token the token the call was made with
     */
    record Finished(IdempotencyToken token) implements FinishResult {
        /** Creates a result. */
        public Finished {
            Objects.requireNonNull(token, "token");
        }
    }

    /**
     * The token no longer owns the key; nothing was changed.
     *
     * @param token the stale token
     */
    record LeaseLost(IdempotencyToken token) implements FinishResult {
        /** Creates a result. */
        public LeaseLost {
            Objects.requireNonNull(token, "token");
        }
    }
}
