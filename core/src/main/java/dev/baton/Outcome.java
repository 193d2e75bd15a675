package dev.baton;

import dev.baton.internal.values.Assignments;
import java.time.Duration;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * What a handler decided for a claimed row. Immutable.
 *
 * <ul>
 *   <li>{@link #complete(Enum)}: move to a final state, optionally setting columns in the same fenced statement;
 *   <li>{@link #retry(String)} / {@link #retryAfter(Duration, String)}: back to the claimable state, due after the
 *       queue's backoff (database clock); after the last attempt the row goes to the dead state instead;
 *   <li>{@link #deadLetter(String)}: straight to the dead state, keeping the error;
 *   <li>{@link #release()}: back to the claimable state at once (for example at shutdown).
 * </ul>
 *
 * @param <S> the enum of states
 */
public final class Outcome<S extends Enum<S>> {
    /** Kinds of outcome. */
    public enum Kind {
        /** Move to a completion state. */
        COMPLETE,
        /** Try again later. */
        RETRY,
        /** Give up. */
        DEAD_LETTER,
        /** Give the row back untouched. */
        RELEASE,
        /** An external call may or may not have happened: park the row for reconciliation (non-idempotent sinks). */
        UNKNOWN
    }

    private final Kind kind;
    private final @Nullable S target;
    private final @Nullable String error;
    private final @Nullable Duration delay;
    private final Assignments assignments;

    private Outcome(
            Kind kind, @Nullable S target, @Nullable String error, @Nullable Duration delay, Assignments assignments) {
        this.kind = kind;
        this.target = target;
        this.error = error;
        this.delay = delay;
        this.assignments = assignments;
    }

    /** Completes the row into {@code target} (a state the processing state may move to). */
    public static <S extends Enum<S>> Outcome<S> complete(S target) {
        return new Outcome<>(Kind.COMPLETE, Objects.requireNonNull(target, "target"), null, null, Assignments.NONE);
    }

    /** Retries later with the queue's backoff; {@code reason} is kept in the error column. */
    public static <S extends Enum<S>> Outcome<S> retry(@Nullable String reason) {
        return new Outcome<>(Kind.RETRY, null, reason, null, Assignments.NONE);
    }

    /** Retries after {@code delay} (database clock) instead of the queue's backoff. */
    public static <S extends Enum<S>> Outcome<S> retryAfter(Duration delay, @Nullable String reason) {
        Objects.requireNonNull(delay, "delay");
        if (delay.isNegative() || delay.compareTo(RetryPolicy.MAX_DELAY) > 0) {
            throw new ConfigurationException(
                    "retry delay must be 0 to " + RetryPolicy.MAX_DELAY + " (24 days), was " + delay);
        }
        return new Outcome<>(Kind.RETRY, null, reason, delay, Assignments.NONE);
    }

    /** Moves the row to the dead state, keeping {@code reason}. */
    public static <S extends Enum<S>> Outcome<S> deadLetter(@Nullable String reason) {
        return new Outcome<>(Kind.DEAD_LETTER, null, reason, null, Assignments.NONE);
    }

    /** Gives the row back to the claimable state, due at once. */
    public static <S extends Enum<S>> Outcome<S> release() {
        return new Outcome<>(Kind.RELEASE, null, null, null, Assignments.NONE);
    }

    /**
     * Parks the row in the queue's unknown state: an external call that cannot be undone may or may not have
     * happened, so the row must not be sent again until a reconciler asked the sink (non-idempotent sinks only).
     */
    public static <S extends Enum<S>> Outcome<S> unknown(@Nullable String reason) {
        return new Outcome<>(Kind.UNKNOWN, null, reason, null, Assignments.NONE);
    }

    /** Also sets {@code column = value} when completing (only for {@link #complete}). */
    public Outcome<S> set(String column, @Nullable Object value) {
        return with(column, value, false);
    }

    /**
     * Also sets {@code column} to the database clock when completing. The value is the database's clock in UTC: {@code clock_timestamp()} on PostgreSQL (for a
     * {@code timestamptz} column, an instant), {@code UTC_TIMESTAMP(6)} on MySQL and MariaDB and {@code
     * SYSUTCDATETIME()} on SQL Server (the UTC wall clock, for a {@code DATETIME(6)} or {@code datetime2} column), never
     * the session's or the JVM's zone. A MySQL {@code TIMESTAMP} column would store it as if it were the session zone's
     * wall clock: use {@code DATETIME(6)}.
     */
    public Outcome<S> setNow(String column) {
        return with(column, null, true);
    }

    private Outcome<S> with(String column, @Nullable Object value, boolean now) {
        if (kind != Kind.COMPLETE) {
            throw new ConfigurationException("only a completion sets columns, not " + kind);
        }
        Assignments more = now ? assignments.setNow(column) : assignments.set(column, value);
        return new Outcome<>(kind, target, error, delay, more);
    }

    /** The kind. */
    public Kind kind() {
        return kind;
    }

    /** The completion state, or null. */
    public @Nullable S target() {
        return target;
    }

    /** The error kept with a retry or dead letter, or null. */
    public @Nullable String error() {
        return error;
    }

    /** The explicit retry delay, or null for the queue's backoff. */
    public @Nullable Duration delay() {
        return delay;
    }

    /** The columns a completion sets besides the state. */
    Assignments assignments() {
        return assignments;
    }

    @Override
    public String toString() {
        return "Outcome[" + kind + (target != null ? " " + target : "") + (error != null ? " " + error : "") + "]";
    }
}
