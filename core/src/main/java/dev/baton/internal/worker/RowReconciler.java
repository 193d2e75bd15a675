package dev.baton.internal.worker;

import dev.baton.Outcome;
import org.jspecify.annotations.Nullable;

/**
 * What the loop asks about an unknown send: the host's reconciler.
 *
 * @param <S> the enum of states
 */
@FunctionalInterface
public interface RowReconciler<S extends Enum<S>> {
    /** The verdict on the send of row {@code id}, or null when it cannot tell yet; may throw. */
    @Nullable
    Outcome<S> reconcile(Object id) throws Exception;
}
