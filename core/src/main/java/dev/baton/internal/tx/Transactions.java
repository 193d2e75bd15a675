package dev.baton.internal.tx;

import dev.baton.BatonException;
import dev.baton.ConfigurationException;
import dev.baton.DataAccessException;
import dev.baton.ReadOnlyTransactionException;
import dev.baton.RetryPolicy;
import dev.baton.spi.BatchUpdate;
import dev.baton.spi.DialectTraits;
import dev.baton.spi.ExclusiveLock;
import dev.baton.spi.HostTransaction;
import dev.baton.spi.HostTransactions;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.SQLTransientException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.Supplier;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The forms of a unit of work on one data source: in the host's transaction when one is active on the calling thread
 * ({@link HostTransactions}), else in autocommit mode or in a READ COMMITTED transaction of its own, each attempt on a
 * connection of its own ({@link Connections}) and every failed attempt through one retry loop ({@link #retrying}).
 * Thread-safe.
 */
public final class Transactions {
    private static final Logger log = LoggerFactory.getLogger(Transactions.class);

    /** Told of each failed attempt that is tried again. */
    @FunctionalInterface
    public interface RetryListener {
        /** Attempt {@code failedAttempt} of {@code operation} failed with {@code failure} and is tried again. */
        void retrying(String operation, int failedAttempt, SQLException failure);
    }

    /**
     * A unit of work the loop attempts, each attempt on a connection of its own, until one succeeds, a failure is
     * final or the policy's attempts are spent.
     *
     * @param <T> its value
     */
    public interface Unit<T> {
        /**
         * Runs one attempt; {@code afterFailover} once an earlier attempt failed with a failover or a lost connection
         * (its work may have committed on the server, and the pool may hold connections to a demoted primary).
         */
        T attempt(boolean afterFailover) throws SQLException;

        /**
         * True when the work is a caller's, whose runtime failures are tried again when a cause is retryable; a runtime
         * failure of Baton's own work is final (it answers a state the database showed, e.g. an outcome in doubt).
         */
        default boolean callersWork() {
            return false;
        }

        /** Sees each failed attempt before the loop decides; throws to end the loop with its own answer. */
        default void failed(Exception failure) {}

        /** The failure the loop throws when it gives up, or null for the failure itself. */
        default @Nullable RuntimeException exhausted(Exception failure) {
            return null;
        }
    }

    private final DataSource dataSource;
    private final DialectTraits traits;
    private final String dialectName;
    private final HostTransactions hosts;
    private final Failures failures;
    private final Connections connections;
    private final RetryListener retries;

    /** The forms on {@code connections}' data source, joining what {@code hosts} finds for it. */
    public Transactions(
            String dialectName,
            DialectTraits traits,
            HostTransactions hosts,
            Failures failures,
            Connections connections,
            RetryListener retries) {
        this.dataSource = connections.dataSource();
        this.dialectName = dialectName;
        this.traits = traits;
        this.hosts = hosts;
        this.failures = failures;
        this.connections = connections;
        this.retries = retries;
    }

    /** The attempts' connections. */
    public Connections connections() {
        return connections;
    }

    /** The classifier of failures. */
    public Failures failures() {
        return failures;
    }

    /** The host transaction active for this data source on this thread, or null. */
    public @Nullable HostTransaction host() {
        return hosts.current(dataSource);
    }

    /** True when a host transaction is active for this data source on this thread (Baton would join it). */
    public boolean inHostTransaction() {
        return host() != null;
    }

    /** Runs {@code action} now, or after the host transaction active on this thread commits (never, if it rolls back). */
    public void afterCommit(Runnable action) {
        HostTransaction host = host();
        if (host != null) {
            host.afterCommit(action);
        } else {
            action.run();
        }
    }

    /**
     * Runs {@code work} on a pooled connection in autocommit mode (each statement commits by itself), retrying
     * transient failures on a fresh connection.
     */
    public <T> T autocommit(String operation, SqlWork<T> work) {
        return autocommit(operation, work, work);
    }

    /**
     * As {@link #autocommit(String, SqlWork)}, but once an attempt lost its connection every later attempt runs
     * {@code afterLostReply} instead: the lost attempt may have committed on the server, so the retry must recognise
     * its own write (read a receipt back) rather than run blind. The normal path runs {@code work} alone.
     */
    public <T> T autocommit(String operation, SqlWork<T> work, SqlWork<T> afterLostReply) {
        HostTransaction host = host();
        return host != null ? joined(operation, host, work) : own(operation, false, work, afterLostReply, null, null);
    }

    /**
     * Runs {@code work} in one READ COMMITTED transaction and commits it, retrying the whole transaction after a
     * transient failure (after an explicit rollback: MySQL's lock-wait timeout rolls back only the statement).
     */
    public <T> T transaction(String operation, SqlWork<T> work) {
        return transaction(operation, work, work);
    }

    /** As {@link #transaction(String, SqlWork)}, with {@code afterLostReply} as {@link #autocommit(String, SqlWork,
     * SqlWork)} runs it. */
    public <T> T transaction(String operation, SqlWork<T> work, SqlWork<T> afterLostReply) {
        return transaction(operation, work, afterLostReply, null);
    }

    /**
     * As {@link #transaction(String, SqlWork, SqlWork)}, then {@code afterCommit} on the connection that committed,
     * before it goes back to the pool; never inside a host transaction, which commits later.
     */
    public <T> T transaction(
            String operation, SqlWork<T> work, SqlWork<T> afterLostReply, @Nullable Consumer<Connection> afterCommit) {
        HostTransaction host = host();
        return host != null
                ? joined(operation, host, work)
                : own(operation, true, work, afterLostReply, null, afterCommit);
    }

    /**
     * Runs {@code work} in a READ COMMITTED transaction of its own even when a host transaction is active: for DDL
     * (which commits an open transaction on MySQL and MariaDB) and checks made while configuring.
     */
    public <T> T ownTransaction(String operation, SqlWork<T> work) {
        return own(operation, true, work, work, null, null);
    }

    /**
     * Runs {@code callerForm} (an operation's form for a caller's connection: it never commits and protects the
     * caller's transaction, e.g. with a savepoint) on the host transaction's connection when one is active on this
     * thread, else {@code own} (the operation's data-source form).
     *
     * @throws DataAccessException if the host cannot hand out its connection
     */
    public <T> T joinOr(String operation, Function<Connection, T> callerForm, Supplier<T> own) {
        HostTransaction host = host();
        if (host == null) {
            return own.get();
        }
        refuseReadOnly(operation, host);
        return joined(operation, host, callerForm::apply);
    }

    /**
     * Runs {@code dataSourceForm} (an operation's data-source form) with the caller's connection bound to this thread
     * as the host transaction, so that every statement it runs goes to {@code connection}: how operations without a
     * hand-written caller form get one. Listener calls it defers are dropped: caller forms fire none.
     */
    public <T> T onCaller(Connection connection, Supplier<T> dataSourceForm) {
        BoundTransactions.Bound bound = BoundTransactions.bind(dataSource, connection);
        try {
            return dataSourceForm.get();
        } finally {
            bound.close();
        }
    }

    /**
     * Runs one batch of a bounded batch update (a claim, a sweep, a bulk transition) on the data source: in a
     * transaction where the dialect's statement needs one to be atomic, else in autocommit mode.
     */
    public List<Object[]> batchUpdate(String operation, BatchUpdate statement, Object[] args) {
        SqlWork<List<Object[]>> work = c -> statement.execute(c, args);
        return batchUpdate(operation, work, work);
    }

    /** Runs a batch as {@link #batchUpdate(String, BatchUpdate, Object[])}, with a work for after a lost reply. */
    public <T> T batchUpdate(String operation, SqlWork<T> work, SqlWork<T> afterLostReply) {
        return batchUpdate(operation, false, work, afterLostReply);
    }

    /**
     * As {@link #batchUpdate(String, SqlWork, SqlWork)}; with {@code transaction}, always in a transaction (a claim
     * that takes a rate limit's tokens in the same commit).
     */
    public <T> T batchUpdate(String operation, boolean transaction, SqlWork<T> work, SqlWork<T> afterLostReply) {
        HostTransaction host = host();
        if (host != null) {
            refuseReadOnly(operation, host);
        }
        return transaction || !traits.batchUpdateIsAtomic()
                ? transaction(operation, work, afterLostReply)
                : autocommit(operation, work, afterLostReply);
    }

    /**
     * Runs {@code work} as {@link #batchUpdate(String, SqlWork, SqlWork)} does, the same work after a lost reply, and
     * says whether it ran again so ({@link Attempted#afterLostReply()}: a count it answers may miss the rows of the
     * lost attempt).
     */
    public <T> Attempted<T> batchUpdateReporting(String operation, SqlWork<T> work) {
        return batchUpdate(
                operation, c -> new Attempted<>(work.run(c), false), c -> new Attempted<>(work.run(c), true));
    }

    /**
     * Runs {@code work} as {@link #transaction(String, SqlWork)} does, the same work after a lost reply, and says
     * whether it ran again so ({@link Attempted#afterLostReply()}).
     */
    public <T> Attempted<T> transactionReporting(String operation, SqlWork<T> work) {
        return transaction(
                operation, c -> new Attempted<>(work.run(c), false), c -> new Attempted<>(work.run(c), true));
    }

    /**
     * Runs a batch as {@link #batchUpdate(String, SqlWork, SqlWork)} does, but always in a transaction that first takes
     * {@code lock} and holds it to its end (a claim that must count what the claim before it committed). A host
     * transaction is joined where the lock ends with the transaction.
     *
     * @throws ConfigurationException in a host transaction, when the dialect's lock outlives transactions
     */
    public <T> T batchUpdateUnderLock(
            String operation, ExclusiveLock lock, SqlWork<T> work, SqlWork<T> afterLostReply) {
        HostTransaction host = host();
        if (host != null) {
            refuseReadOnly(operation, host);
            if (lock.releaseAfterEnd() != null) {
                throw new ConfigurationException(operation + " cannot join the caller's transaction on "
                        + dialectName + ": its claim lock is held by the session, not the transaction; claim"
                        + " outside a transaction");
            }
            return joined(operation, host, locked(lock, work));
        }
        return own(operation, true, locked(lock, work), locked(lock, afterLostReply), lock.releaseAfterEnd(), null);
    }

    /**
     * Runs {@code work} on the host transaction's connection: no commit, no rollback, no settings changed, no retry
     * (a transient failure has spoiled the host's transaction, which only its owner can roll back and run again).
     */
    public <T> T joined(String operation, HostTransaction host, SqlWork<T> work) {
        try {
            Connection c = host.connection();
            try {
                return work.run(c);
            } finally {
                host.release(c);
            }
        } catch (SQLException e) {
            throw new DataAccessException(operation + " failed in the host's transaction", e);
        }
    }

    /** Baton's own work on a connection of its own, through the retry loop. */
    private <T> T own(
            String operation,
            boolean transactional,
            SqlWork<T> work,
            SqlWork<T> afterLostReply,
            @Nullable String releaseAfterEnd,
            @Nullable Consumer<Connection> afterCommit) {
        TransactionWork<T> normal = TransactionWork.committing(work);
        TransactionWork<T> again = afterLostReply == work ? normal : TransactionWork.committing(afterLostReply);
        return retrying(
                operation,
                afterFailover -> connections.once(
                        transactional,
                        afterFailover,
                        afterFailover ? again : normal,
                        null,
                        releaseAfterEnd,
                        afterCommit));
    }

    /**
     * The one retry loop: attempts {@code unit} until an attempt succeeds, its failure is not {@link
     * Failures#retryable retryable}, or the policy for the failure ({@link Failures#policyFor}) has no attempt left,
     * sleeping the policy's backoff between attempts. A failover failure (a read-only refusal counts too: an autocommit
     * work's earlier statements may have committed before the server was fenced) makes every later attempt an attempt
     * after a failover.
     *
     * @throws DataAccessException wrapping the last failure when it was an {@link SQLException}; a runtime failure is
     *     thrown as it is
     */
    public <T> T retrying(String operation, Unit<T> unit) {
        boolean afterFailover = false;
        for (int attempt = 1; ; attempt++) {
            try {
                return unit.attempt(afterFailover);
            } catch (SQLException | RuntimeException e) {
                if (e instanceof RuntimeException r && !unit.callersWork()) {
                    throw r;
                }
                afterFailover |= failures.failover(e);
                unit.failed(e);
                RetryPolicy policy = failures.policyFor(e);
                if (!failures.retryable(e) || attempt >= policy.maxAttempts()) {
                    RuntimeException answer = unit.exhausted(e);
                    if (answer != null) {
                        throw answer;
                    }
                    if (e instanceof RuntimeException r) {
                        throw r;
                    }
                    throw new DataAccessException(
                            operation + " failed" + (attempt > 1 ? " after " + attempt + " attempts" : ""),
                            (SQLException) e);
                }
                retries.retrying(operation, attempt, Failures.sqlCause(e));
                log.debug("{}: transient failure on attempt {} ({}), retrying", operation, attempt, e.getMessage());
                sleep(policy.delayBefore(attempt, ThreadLocalRandom.current().nextDouble()));
            }
        }
    }

    /** Refuses a write in a read-only host transaction, before any SQL. */
    private static void refuseReadOnly(String operation, HostTransaction host) {
        if (host.readOnly()) {
            throw new ReadOnlyTransactionException(operation + " would write in the caller's read-only transaction;"
                    + " run it in a read-write transaction");
        }
    }

    /** {@code work} after the lock's acquiring query answered 1; a lock not acquired in time is a transient failure. */
    private static <T> SqlWork<T> locked(ExclusiveLock lock, SqlWork<T> work) {
        return c -> {
            boolean held = false;
            try (Statement s = c.createStatement()) {
                // SQL Server's acquisition is a batch: its result set follows the procedure's return, so walk to it
                for (boolean result = s.execute(lock.acquire()); ; result = s.getMoreResults()) {
                    if (result) {
                        try (ResultSet rs = s.getResultSet()) {
                            held = rs.next() && rs.getInt(1) == 1;
                        }
                        break;
                    }
                    if (s.getUpdateCount() == -1) {
                        break;
                    }
                }
            }
            if (!held) {
                throw new SQLTransientException("the claim lock was not acquired in time", "40001");
            }
            return work.run(c);
        };
    }

    private static void sleep(Duration d) {
        try {
            Thread.sleep(d.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new BatonException("interrupted while waiting to retry", e);
        }
    }
}
