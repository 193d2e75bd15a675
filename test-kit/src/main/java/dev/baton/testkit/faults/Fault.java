package dev.baton.testkit.faults;

import java.util.Objects;
import java.util.function.Predicate;

/**
 * Which step a {@link FaultyDataSource} hits, and how. A fault fires once, at the first step it matches after
 * {@link FaultyDataSource#arm(Fault)}; later steps run normally, so the operation's own retries meet a healthy server.
 * Immutable and thread-safe.
 *
 * <pre>{@code
 * faults.arm(Fault.atStep(FaultPoint.LOST_REPLY, 2));                      // the second statement or commit
 * faults.arm(Fault.on(FaultPoint.LOST_REPLY, StepKind.COMMIT, 1));         // the first commit
 * faults.arm(Fault.whenSql(FaultPoint.KILL_BACKEND, s -> s.startsWith("UPDATE")));
 * faults.arm(Fault.atStep(FaultPoint.DELAY, 1).delayMillis(200));
 * }</pre>
 *
 * @param point what happens
 * @param kind the kind of step counted, or null to count every faultable step
 * @param nth the 1-based position among the counted steps; 0 when {@code sql} selects the step instead
 * @param sql selects the first faultable step whose SQL text matches, or null
 * @param description how the fault was specified, for messages
 * @param delayMillis the wait of {@link FaultPoint#DELAY} (default 50 ms)
 */
public record Fault(
        FaultPoint point, StepKind kind, int nth, Predicate<String> sql, String description, long delayMillis) {
    /** Default wait of a {@link FaultPoint#DELAY}. */
    public static final long DEFAULT_DELAY_MILLIS = 50;

    /**
     * Validates the fields.
     *
     * @throws IllegalArgumentException if neither a position nor a SQL predicate selects the step, or the kind is
     *     {@link StepKind#ROLLBACK}
     */
    public Fault {
        Objects.requireNonNull(point, "point");
        Objects.requireNonNull(description, "description");
        if ((nth < 1) == (sql == null)) {
            throw new IllegalArgumentException("a fault selects its step by position (1..) or by SQL, not both");
        }
        if (kind == StepKind.ROLLBACK) {
            throw new IllegalArgumentException("rollbacks are never faulted");
        }
        if (delayMillis < 0) {
            throw new IllegalArgumentException("delayMillis must not be negative, was " + delayMillis);
        }
    }

    /**
     * The {@code n}th faultable step of any kind (statements and commits, in order).
     *
     * @param point what happens
     * @param n 1-based
     * @return the fault
     */
    public static Fault atStep(FaultPoint point, int n) {
        return new Fault(point, null, n, null, point + " at step " + n, DEFAULT_DELAY_MILLIS);
    }

    /**
     * The {@code n}th step of one kind, such as the second {@link StepKind#UPDATE} or the first {@link
     * StepKind#COMMIT}.
     *
     * @param point what happens
     * @param kind the kind counted
     * @param n 1-based
     * @return the fault
     */
    public static Fault on(FaultPoint point, StepKind kind, int n) {
        Objects.requireNonNull(kind, "kind");
        return new Fault(point, kind, n, null, point + " at " + kind + " " + n, DEFAULT_DELAY_MILLIS);
    }

    /**
     * The first statement whose SQL text matches.
     *
     * @param point what happens
     * @param sql tested against each statement's text (commits are {@code "COMMIT"})
     * @return the fault
     */
    public static Fault whenSql(FaultPoint point, Predicate<String> sql) {
        Objects.requireNonNull(sql, "sql");
        return new Fault(point, null, 0, sql, point + " at the first matching statement", DEFAULT_DELAY_MILLIS);
    }

    /**
     * The same fault with another wait for {@link FaultPoint#DELAY}.
     *
     * @param millis the wait, 0 or more
     * @return a new fault
     */
    public Fault delayMillis(long millis) {
        return new Fault(point, kind, nth, sql, description, millis);
    }

    @Override
    public String toString() {
        return description;
    }
}
