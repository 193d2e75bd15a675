package dev.baton.internal.tx;

import dev.baton.RetryPolicy;
import dev.baton.spi.Diagnostics;
import dev.baton.spi.SqlError;
import java.lang.reflect.Method;
import java.sql.SQLException;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.Locale;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * The one classifier of failures: whether a failed attempt may be tried again and under which policy, whether its
 * connection was lost (its COMMIT may have taken effect) and whether its server stopped being the writer. Built from
 * the dialect's {@link Diagnostics} and the transient retry policy. Immutable and thread-safe.
 */
public final class Failures {
    /** How many times a lost write conflict is tried in all, as a multiple of the transient policy's attempts. */
    static final int CONFLICT_ATTEMPTS_FACTOR = 4;

    private final Diagnostics diagnostics;
    private final RetryPolicy transientRetry;
    private final RetryPolicy conflictRetry;

    /** A classifier by {@code diagnostics}, retrying under {@code transientRetry} (and its {@link #conflictRetry}). */
    public Failures(Diagnostics diagnostics, RetryPolicy transientRetry) {
        this.diagnostics = diagnostics;
        this.transientRetry = transientRetry;
        this.conflictRetry = conflictRetry(transientRetry);
    }

    /** The dialect's reading of one failure; an old writer's refusal is a read-only one. */
    public SqlError classify(SQLException e) {
        return e instanceof StaleWriterException ? SqlError.READ_ONLY : diagnostics.classify(e);
    }

    /** The policy of transient failures. */
    public RetryPolicy transientRetry() {
        return transientRetry;
    }

    /**
     * True when {@code failure} or one of its causes is an {@link SQLException} the dialect classifies as retryable
     * (deadlock, serialization failure, lock timeout, lost connection, failover); also found among suppressed
     * exceptions, in the original failure a framework kept when its rollback failed (Spring's {@code
     * TransactionSystemException.getApplicationException()}: when the rollback fails too, Spring throws the
     * rollback's failure in place of the original), and as a closed connection in a rollback's failure (a pool's
     * "Connection is closed", without an SQLState: the transaction never committed, and its session is gone, so the
     * server rolled it back).
     */
    public boolean retryable(@Nullable Throwable failure) {
        return retryableIn(failure, false, Collections.newSetFromMap(new IdentityHashMap<>()));
    }

    private boolean retryableIn(@Nullable Throwable t, boolean inRollback, Set<Throwable> seen) {
        if (t == null || !seen.add(t)) {
            return false;
        }
        if (t instanceof SQLException e && (classify(e).retryable() || inRollback && closedConnection(e))) {
            return true;
        }
        boolean rollback = inRollback || mentionsRollback(t);
        if (retryableIn(t.getCause(), rollback, seen)) {
            return true;
        }
        for (Throwable s : t.getSuppressed()) {
            if (retryableIn(s, mentionsRollback(s), seen)) {
                return true;
            }
        }
        return retryableIn(applicationException(t), false, seen);
    }

    /**
     * True when the first {@link SQLException} of {@code failure}'s causes is a failover ({@link SqlError#failover()}):
     * the server refused writes or the connection to it was lost.
     */
    public boolean failover(Throwable failure) {
        SQLException e = firstSql(failure);
        return e != null && classify(e).failover();
    }

    /** True when an {@link SQLException} among {@code failure}'s causes is a lost connection. */
    public boolean lostConnection(Throwable failure) {
        for (Throwable t = failure; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (t instanceof SQLException e && classify(e).kind() == SqlError.Kind.CONNECTION_LOST) {
                return true;
            }
        }
        return false;
    }

    /** The policy for {@code failure}: {@link #conflictRetry} for a lost write conflict, else the transient one. */
    public RetryPolicy policyFor(Throwable failure) {
        SQLException e = firstSql(failure);
        return e != null && classify(e).kind() == SqlError.Kind.CONFLICT ? conflictRetry : transientRetry;
    }

    /**
     * The retries of a lost write conflict: the transient policy with {@value #CONFLICT_ATTEMPTS_FACTOR} times its
     * attempts (6 become 24) and full jitter; a policy that never retries still never does. A conflict is likely to
     * recur at once: on a Galera cluster, claimers on different nodes all pick the head of the same queue, and only
     * one of them certifies per round (6 attempts ran out in the compatibility suite with 8 claimers on three nodes);
     * full jitter spreads the losers' next tries apart.
     */
    public static RetryPolicy conflictRetry(RetryPolicy transientRetry) {
        int attempts = transientRetry.maxAttempts();
        return attempts == 1
                ? transientRetry
                : transientRetry
                        .maxAttempts(attempts * CONFLICT_ATTEMPTS_FACTOR)
                        .jitter(1.0);
    }

    /** The first {@link SQLException} among {@code failure}'s causes, or one that wraps {@code failure}. */
    public static SQLException sqlCause(Throwable failure) {
        SQLException e = firstSql(failure);
        return e != null ? e : new SQLException(failure);
    }

    private static @Nullable SQLException firstSql(Throwable failure) {
        for (Throwable t = failure; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (t instanceof SQLException e) {
                return e;
            }
        }
        return null;
    }

    private static boolean mentionsRollback(Throwable t) {
        String m = t.getMessage();
        if (m == null) {
            return false;
        }
        String lower = m.toLowerCase(Locale.ROOT);
        return lower.contains("rollback") || lower.contains("roll back");
    }

    private static boolean closedConnection(SQLException e) {
        String state = e.getSQLState();
        String m = e.getMessage();
        return (state == null || state.startsWith("08"))
                && m != null
                && m.toLowerCase(Locale.ROOT).contains("connection is closed");
    }

    /** The original failure a transaction framework kept when its rollback failed, or null. */
    private static @Nullable Throwable applicationException(Throwable t) {
        try {
            Method m = t.getClass().getMethod("getApplicationException");
            return m.getReturnType() == Throwable.class ? (Throwable) m.invoke(t) : null;
        } catch (ReflectiveOperationException | RuntimeException e) {
            return null;
        }
    }
}
