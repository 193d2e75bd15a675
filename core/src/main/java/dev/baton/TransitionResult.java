package dev.baton;

import dev.baton.internal.values.TypedValues;
import org.jspecify.annotations.Nullable;

/**
 * What a guarded transition did. A closed set of outcomes, returned rather than thrown:
 *
 * <ul>
 *   <li>{@link Applied}: this call moved the row;
 *   <li>{@link AlreadyInTarget}: the row was already in the target state (an idempotent duplicate, such as a second
 *       gateway callback);
 *   <li>{@link InDoubt}: the connection was lost after the statement was sent, and the retry found the row in the
 *       target state: this call's lost attempt or an earlier writer moved it, and Baton cannot tell which;
 *   <li>{@link Rejected}: the row is in a state from which this transition is not allowed, e.g. {@code FAILED} when
 *       {@code PENDING → PAID} was asked;
 *   <li>{@link NotFound}: no row has that id;
 *   <li>{@link Conflict}: a unique constraint refused the change (e.g. one gateway transaction id on two orders).
 * </ul>
 *
 * <pre>{@code
 * if (result instanceof TransitionResult.Rejected<Payment> rejected) {
 *     log.warn("order {} is {}", rejected.id(), rejected.current());
 * }
 * }</pre>
 *
 * On Java 21 and later the sealed hierarchy also works in an exhaustive {@code switch}.
 *
 * @param <S> the enum of states
 */
public sealed interface TransitionResult<S extends Enum<S>> {

    /** The id of the row. */
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

    /** True for {@link Applied}. */
    default boolean applied() {
        return this instanceof Applied;
    }

    /** True when the row is now in the target state, whether this call moved it or an earlier one did. */
    default boolean inTarget() {
        return this instanceof Applied || this instanceof AlreadyInTarget || this instanceof InDoubt;
    }

    /**
     * This call moved the row into {@code state}.
     *
     * @param id the row id
     * @param state the new state
     * @param <S> the enum of states
     */
    record Applied<S extends Enum<S>>(Object id, S state) implements TransitionResult<S> {}

    /**
     * The row was already in the target state; nothing was written.
     *
     * @param id the row id
     * @param state the current (and target) state
     * @param <S> the enum of states
     */
    record AlreadyInTarget<S extends Enum<S>>(Object id, S state) implements TransitionResult<S> {}

    /**
     * The connection was lost after the statement was sent; the row is in the target state, but whether this call or
     * an earlier one moved it is unknown. Only {@link Transition#apply()} and {@code Outbox.transitionAndEnqueue}
     * return it (they retry after a lost connection; on the caller's connection nothing is retried). Treat it as
     * "in the target state, effects of the move possibly already done": a caller that must act exactly once on the
     * move (send a mail, enqueue a message) should do so idempotently or from the outbox the move committed with.
     *
     * <p>Under {@link CommitDurability#REQUIRE} ({@code Baton.Builder.commitDurability}) it also answers a move that
     * committed on the writer but that no standby was known to have in time: a failover may still lose it, so do not
     * acknowledge it; {@link #reason()} says so.
     *
     * @param id the row id
     * @param state the current (and target) state
     * @param reason why the outcome is in doubt
     * @param <S> the enum of states
     */
    record InDoubt<S extends Enum<S>>(Object id, S state, String reason) implements TransitionResult<S> {
        /** The reason of an in-doubt result after a lost connection. */
        public static final String LOST_REPLY = "the connection was lost after the statement was sent; the row is in"
                + " the target state, but whether this call moved it is unknown";

        /**
         * How the reason of an in-doubt result under {@link CommitDurability#REQUIRE} begins: the move committed on the
         * writer, no standby was known to have it in time.
         */
        public static final String NOT_KNOWN_DURABLE = "applied on the writer, not known durable";

        /** Validates the components. */
        public InDoubt {
            java.util.Objects.requireNonNull(reason, "reason");
        }

        /**
         * An in-doubt result after a lost connection ({@link #LOST_REPLY}).
         *
         * @param id the row id
         * @param state the current (and target) state
         */
        public InDoubt(Object id, S state) {
            this(id, state, LOST_REPLY);
        }

        /**
         * True when this result answers a commit that no standby was known to have in time ({@link
         * CommitDurability#REQUIRE}): do not acknowledge it; a retry that finds the row durable answers {@link
         * AlreadyInTarget}.
         */
        public boolean notKnownDurable() {
            return reason.startsWith(NOT_KNOWN_DURABLE);
        }
    }

    /**
     * The row is in a state this transition may not start from; nothing was written.
     *
     * @param id the row id
     * @param current the state the row is in (read right after the guarded update matched nothing)
     * @param target the state that was asked for
     * @param <S> the enum of states
     */
    record Rejected<S extends Enum<S>>(Object id, S current, S target) implements TransitionResult<S> {}

    /**
     * No row has this id.
     *
     * @param id the row id
     * @param <S> the enum of states
     */
    record NotFound<S extends Enum<S>>(Object id) implements TransitionResult<S> {}

    /**
     * A unique constraint refused the change; nothing was written.
     *
     * @param id the row id
     * @param constraint the constraint or unique index the database named, or {@code null} if it named none
     * @param <S> the enum of states
     */
    record Conflict<S extends Enum<S>>(Object id, @Nullable String constraint) implements TransitionResult<S> {}
}
