package dev.baton;

import dev.baton.internal.values.TypedValues;
import java.time.Duration;

/**
 * The result of a write that only the current holder of a claim may make (complete, retry, dead-letter, heartbeat,
 * release, mark-sending). Guarded by the row's state and fencing token: a worker whose lease expired and whose row
 * was reclaimed gets {@link LeaseLost}, and its write changed nothing. {@link ClaimQueue#markSending} may also answer
 * {@link TooLate}.
 *
 * @param <S> the enum of states
 */
public sealed interface LeaseResult<S extends Enum<S>> {

    /** The row id. */
    Object id();

    /**
     * The row id as {@code type}, converted as {@link ClaimedRow#id(Class)} converts it (an integral id as any integral
     * type it fits in).
     *
     * @throws ClassCastException if the id is not readable as {@code type} without loss
     */
    default <T> T id(Class<T> type) {
        return TypedValues.as(id(), type, "row id");
    }

    /**
     * The row id as a {@code long}.
     *
     * @throws ClassCastException if the id is not an integral number that fits in a {@code long}
     */
    default long longId() {
        return id(Long.class);
    }

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

    /**
     * {@link ClaimQueue#markSending} refused before any SQL: the claim's local deadline passed, or less than the
     * queue's send timeout is left before it. Nothing was written; do not send. The row stays held by this claim in
     * the processing state until its lease ends (or a release gives it back).
     *
     * @param id the row id
     * @param remaining the time that was left before the local deadline (zero or negative: it had passed)
     * @param <S> the enum of states
     */
    record TooLate<S extends Enum<S>>(Object id, Duration remaining) implements LeaseResult<S> {}
}
