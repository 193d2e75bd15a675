package dev.baton;

/**
 * The result of a write that only the current holder of a claim may make (complete, retry, dead-letter, heartbeat,
 * release, mark-sending). Guarded by the row's state and fencing token: a worker whose lease expired and whose row
 * was reclaimed gets {@link LeaseLost}, and its write changed nothing.
 *
 * @param <S> the enum of states
 */
public sealed interface LeaseResult<S extends Enum<S>> {

    /** The row id. */
    Object id();

    /** True for {@link Done}. */
    default boolean done() {
        return this instanceof Done;
    }

    /**
     * The write happened; the row is now in {@code state}.
     *
     * @param id the row id
     * @param state the row's state after the write
     * @param <S> the enum of states
     */
    record Done<S extends Enum<S>>(Object id, S state) implements LeaseResult<S> {}

    /**
     * The claim is no longer held (lease expired and the row was reclaimed, or it was released); nothing was written.
     *
     * @param id the row id
     * @param <S> the enum of states
     */
    record LeaseLost<S extends Enum<S>>(Object id) implements LeaseResult<S> {}
}
