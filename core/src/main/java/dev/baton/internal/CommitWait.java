package dev.baton.internal;

import dev.baton.CommitDurability;
import dev.baton.TransitionResult;
import dev.baton.internal.events.Events;
import dev.baton.internal.queue.MarkDurability;
import dev.baton.spi.Diagnostics;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The wait after Baton's own commits of transitions ({@link CommitDurability}): on the connection that committed,
 * until a standby has flushed the commit or {@code maxWait} is over ({@link MarkDurability}); then the report (log,
 * listeners) and, under {@code REQUIRE}, the in-doubt answer. Immutable.
 */
public final class CommitWait {
    private static final Logger log = LoggerFactory.getLogger(CommitWait.class);

    /** No wait. */
    public static final CommitWait OFF = new CommitWait(CommitDurability.OFF, Duration.ZERO);

    private final CommitDurability policy;
    private final Duration maxWait;

    /** A wait of at most {@code maxWait} under {@code policy}. */
    public CommitWait(CommitDurability policy, Duration maxWait) {
        this.policy = policy;
        this.maxWait = maxWait;
    }

    /** True for {@link CommitDurability#OFF}: nothing is asked. */
    public boolean off() {
        return policy == CommitDurability.OFF;
    }

    /** True for {@link CommitDurability#REQUIRE}. */
    public boolean required() {
        return policy == CommitDurability.REQUIRE;
    }

    /**
     * Null when the policy is off or a standby has everything {@code c} committed; else why not. Never throws: a
     * failure to read the progress is "not known durable" (the commit itself stands).
     */
    public @Nullable String await(Connection c, Diagnostics diagnostics) {
        if (off()) {
            return null;
        }
        try {
            return MarkDurability.await(c, diagnostics, maxWait).orElse(null);
        } catch (SQLException | RuntimeException e) {
            return "the replication progress could not be read: " + e.getMessage();
        }
    }

    /** Logs a commit not known durable and tells the listeners. */
    public void reportNotDurable(Events events, String operation, String reason) {
        log.warn(
                "{}: committed on the writer, not known durable ({}, commit durability {})", operation, reason, policy);
        events.fireNow(l -> l.onCommitNotDurable(operation, policy, reason));
    }

    /**
     * What a transition on the data source answers after its commit: {@code result} unless the row is in the target
     * state and the commit was not known durable ({@code notDurable}), which is reported, and under {@code REQUIRE}
     * answered with {@link TransitionResult.InDoubt}.
     */
    public <S extends Enum<S>> TransitionResult<S> settle(
            Events events, String operation, TransitionResult<S> result, @Nullable String notDurable) {
        if (notDurable == null || !result.inTarget()) {
            return result;
        }
        reportNotDurable(events, operation, notDurable);
        if (!required()) {
            return result;
        }
        S state = result instanceof TransitionResult.Applied<S> a
                ? a.state()
                : result instanceof TransitionResult.AlreadyInTarget<S> t
                        ? t.state()
                        : ((TransitionResult.InDoubt<S>) result).state();
        return new TransitionResult.InDoubt<>(
                result.id(), state, TransitionResult.InDoubt.NOT_KNOWN_DURABLE + ": " + notDurable);
    }
}
