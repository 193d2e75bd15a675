package dev.baton.internal.worker;

import dev.baton.ClaimedRow;
import dev.baton.Outcome;

/**
 * What the loop runs for a claimed row: the host's handler inside its interceptors.
 *
 * @param <S> the enum of states
 */
@FunctionalInterface
public interface RowHandler<S extends Enum<S>> {
    /** Processes the row and says what to do with it; may throw. */
    Outcome<S> handle(ClaimedRow<S> row) throws Exception;
}
