package dev.baton.internal;

import dev.baton.BatonInterceptor;
import dev.baton.BatonListener;
import dev.baton.ConfigurationException;
import dev.baton.DataAccessException;
import dev.baton.OutcomeInDoubtException;
import dev.baton.ReadOnlyTransactionException;
import dev.baton.RetryPolicy;
import dev.baton.internal.sql.TableStatements;
import dev.baton.internal.tables.ReceiptStatements;
import dev.baton.internal.wake.Wakeups;
import dev.baton.spi.BatchUpdate;
import dev.baton.spi.Dialect;
import dev.baton.spi.ExclusiveLock;
import dev.baton.spi.HostTransaction;
import dev.baton.spi.HostTransactions;
import dev.baton.spi.OwnTableDialect.OwnTable;
import dev.baton.spi.Rows;
import dev.baton.spi.SqlError;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.SQLTransientException;
import java.sql.Statement;
import java.time.Duration;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.WeakHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.Supplier;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Shared machinery of one {@code Baton} instance: the data source, the dialect, the transient-failure retry policy,
 * the listeners and the host transactions to join. Runs units of work in the host's transaction when one is active on
 * the calling thread ({@link HostTransactions}), else in autocommit mode or in a READ COMMITTED transaction of its
 * own, retrying transient failures with backoff. Immutable and thread-safe.
 */
public final class Engine {
    private static final Logger log = LoggerFactory.getLogger(Engine.class);

    private static final Object[] NO_ARGS = new Object[0];

    private static final java.util.Random RECEIPT_RANDOM = new java.security.SecureRandom();
    private static final long RECEIPT_PROBE_INTERVAL_NANOS =
            Duration.ofMinutes(1).toNanos();
    private static final long RECEIPT_PURGE_INTERVAL_NANOS =
            Duration.ofMinutes(1).toNanos();
    /** Receipts are read back within the retries of one call (seconds); an hour leaves room for slow retries. */
    private static final Duration RECEIPT_RETENTION = Duration.ofHours(1);

    private final DataSource dataSource;
    /** A reader's engine: it never asks whether its server takes writes (a standby never does). */
    private final boolean readsOnly;

    private final Engine reader;
    private final Dialect dialect;
    private final RetryPolicy transientRetry;
    /** The retries of a lost write conflict ({@link SqlError.Kind#CONFLICT}): see {@link #conflictRetry}. */
    private final RetryPolicy conflictRetry;

    private final List<BatonListener> listeners;
    private final List<BatonInterceptor> interceptors;
    private final HostTransactions hosts;
    private final String receiptsTable;
    private final Wakeups wakeups;
    /** The failover audit of applied transitions; null when off. */
    private final @Nullable FailoverAudit audit;

    private final ReceiptStatements receipts;
    private final AtomicLong receiptsPurgedAt = new AtomicLong(System.nanoTime() - RECEIPT_PURGE_INTERVAL_NANOS);
    private volatile long receiptsProbedAt;
    private volatile boolean receiptsFound;
    /** The first statement of an own transaction where {@link dev.baton.spi.DialectTraits#isolationPerTransaction()}. */
    private static final String SET_READ_COMMITTED = "SET TRANSACTION ISOLATION LEVEL READ COMMITTED";

    /** Set once before the engine is shared: see {@link #commitWait(CommitWait)}. */
    private volatile CommitWait commitWait = CommitWait.OFF;

    /** Physical connections seen at READ COMMITTED, weakly held (a closed connection drops out). */
    private final Map<Connection, Boolean> readCommitted = Collections.synchronizedMap(new WeakHashMap<>());

    /** Creates an engine that never joins a host transaction, with the defaults of {@code Baton.Builder}: for tests. */
    public Engine(DataSource dataSource, Dialect dialect, RetryPolicy transientRetry, List<BatonListener> listeners) {
        this(
                dataSource,
                dialect,
                transientRetry,
                listeners,
                HostTransactions.NONE,
                List.of(),
                OwnTable.RECEIPTS.defaultName(),
                false,
                Wakeups.DEFAULT_CHANNEL,
                null);
    }

    /**
     * Creates an engine that joins the transactions {@code hosts} finds for {@code dataSource} (which must already be
     * {@link HostTransactions#target unwrapped}), with interceptors (outermost first), the transaction-receipt table
     * of {@link #inTransaction}, the wake-ups across processes on or off and their channel (a validated
     * identifier), and a reader for inspection ({@link #reader()}): health, gauges and dead-letter lists may run
     * there; decisions never do. Null: inspection runs on {@code dataSource}.
     */
    public Engine(
            DataSource dataSource,
            Dialect dialect,
            RetryPolicy transientRetry,
            List<BatonListener> listeners,
            HostTransactions hosts,
            List<BatonInterceptor> interceptors,
            String receiptsTable,
            boolean crossProcessWakeups,
            String wakeupChannel,
            @Nullable DataSource readerDataSource) {
        this(
                dataSource,
                dialect,
                transientRetry,
                listeners,
                hosts,
                interceptors,
                receiptsTable,
                crossProcessWakeups,
                wakeupChannel,
                readerDataSource,
                null);
    }

    /**
     * As the constructor above, with the failover audit of the transitions applied within {@code failoverAudit} (null:
     * none); its thread starts here.
     */
    public Engine(
            DataSource dataSource,
            Dialect dialect,
            RetryPolicy transientRetry,
            List<BatonListener> listeners,
            HostTransactions hosts,
            List<BatonInterceptor> interceptors,
            String receiptsTable,
            boolean crossProcessWakeups,
            String wakeupChannel,
            @Nullable DataSource readerDataSource,
            @Nullable Duration failoverAudit) {
        this(
                dataSource,
                dialect,
                transientRetry,
                listeners,
                hosts,
                interceptors,
                receiptsTable,
                crossProcessWakeups,
                wakeupChannel,
                readerDataSource,
                false,
                failoverAudit);
        if (audit != null) {
            audit.start();
        }
    }

    private Engine(
            DataSource dataSource,
            Dialect dialect,
            RetryPolicy transientRetry,
            List<BatonListener> listeners,
            HostTransactions hosts,
            List<BatonInterceptor> interceptors,
            String receiptsTable,
            boolean crossProcessWakeups,
            String wakeupChannel,
            @Nullable DataSource readerDataSource,
            boolean readsOnly,
            @Nullable Duration failoverAudit) {
        // a reader engine only inspects: it wakes nobody and listens to nothing
        this.wakeups = new Wakeups(dataSource, dialect, hosts, crossProcessWakeups && !readsOnly, wakeupChannel);
        this.readsOnly = readsOnly;
        this.reader = readerDataSource == null
                ? this
                : new Engine(
                        readerDataSource,
                        dialect,
                        transientRetry,
                        List.of(),
                        HostTransactions.NONE,
                        List.of(),
                        receiptsTable,
                        false,
                        wakeupChannel,
                        null,
                        true,
                        null);
        this.receiptsTable = receiptsTable;
        this.receipts = new ReceiptStatements(dialect, receiptsTable);
        this.dataSource = dataSource;
        this.dialect = dialect;
        this.transientRetry = transientRetry;
        this.conflictRetry = conflictRetry(transientRetry);
        this.listeners = List.copyOf(listeners);
        this.hosts = hosts;
        this.interceptors = List.copyOf(interceptors);
        this.audit = failoverAudit == null ? null : new FailoverAudit(this, failoverAudit);
    }

    /**
     * Where inspection reads (health, gauges, dead-letter lists): the reader data source given to the builder, or this
     * engine. A reader may be a standby that lags the writer; nothing Baton decides with is read there.
     */
    public Engine reader() {
        return reader;
    }

    /** The interceptors, outermost first. */
    public List<BatonInterceptor> interceptors() {
        return interceptors;
    }

    /** The dialect. */
    public Dialect dialect() {
        return dialect;
    }

    /** The data source. */
    public DataSource dataSource() {
        return dataSource;
    }

    /** The wake-ups of idle workers. */
    public Wakeups wakeups() {
        return wakeups;
    }

    /**
     * Runs {@code work} on a pooled connection in autocommit mode (each statement commits by itself), retrying
     * transient failures on a fresh connection.
     */
    public <T> T autocommit(String operation, SqlWork<T> work) {
        return withRetry(operation, false, work, work);
    }

    /**
     * Runs {@code work} in one READ COMMITTED transaction and commits it, retrying the whole transaction after a
     * transient failure (after an explicit rollback: MySQL's lock-wait timeout rolls back only the statement).
     */
    public <T> T transaction(String operation, SqlWork<T> work) {
        return withRetry(operation, true, work, work);
    }

    /**
     * As {@link #autocommit(String, SqlWork)}, but once an attempt lost its connection every later attempt runs
     * {@code afterLostReply} instead: the lost attempt may have committed on the server, so the retry must recognise
     * its own write (read a receipt back) rather than run blind. The normal path runs {@code work} alone.
     */
    public <T> T autocommit(String operation, SqlWork<T> work, SqlWork<T> afterLostReply) {
        return withRetry(operation, false, work, afterLostReply);
    }

    /** As {@link #transaction(String, SqlWork)}, with {@code afterLostReply} as {@link #autocommit(String, SqlWork,
     * SqlWork)} runs it. */
    public <T> T transaction(String operation, SqlWork<T> work, SqlWork<T> afterLostReply) {
        return withRetry(operation, true, work, afterLostReply);
    }

    /**
     * As {@link #transaction(String, SqlWork, SqlWork)}, then {@code afterCommit} on the connection that committed,
     * before it goes back to the pool (the {@link CommitWait}); never inside a host transaction, which commits later.
     */
    public <T> T transaction(
            String operation, SqlWork<T> work, SqlWork<T> afterLostReply, Consumer<Connection> afterCommit) {
        HostTransaction host = hosts.current(dataSource);
        if (host != null) {
            return joined(operation, host, work);
        }
        return ownWithRetry(operation, true, work, afterLostReply, null, afterCommit);
    }

    /** What this instance waits for after its own commits ({@code Baton.Builder.commitDurability}). */
    public CommitWait commitWait() {
        return commitWait;
    }

    /** Sets {@link #commitWait()}; called once, by {@code Baton.Builder.build()}, before the engine is shared. */
    public void commitWait(CommitWait wait) {
        this.commitWait = java.util.Objects.requireNonNull(wait, "wait");
    }

    /**
     * Runs {@code work} in a READ COMMITTED transaction of its own even when a host transaction is active: for DDL
     * (which commits an open transaction on MySQL and MariaDB) and checks made while configuring.
     */
    public <T> T ownTransaction(String operation, SqlWork<T> work) {
        return ownWithRetry(operation, true, work, work);
    }

    /**
     * Runs {@code callerForm} (an operation's form for a caller's connection: it never commits and protects the
     * caller's transaction, e.g. with a savepoint) on the host transaction's connection when one is active on this
     * thread, else {@code own} (the operation's data-source form).
     *
     * @throws DataAccessException if the host cannot hand out its connection
     */
    public <T> T joinOr(String operation, Function<Connection, T> callerForm, Supplier<T> own) {
        HostTransaction host = hosts.current(dataSource);
        if (host == null) {
            return own.get();
        }
        refuseReadOnly(operation, host);
        return joined(operation, host, callerForm::apply);
    }

    /** Refuses a write in a read-only host transaction, before any SQL. */
    private static void refuseReadOnly(String operation, HostTransaction host) {
        if (host.readOnly()) {
            throw new ReadOnlyTransactionException(operation + " would write in the caller's read-only transaction;"
                    + " run it in a read-write transaction");
        }
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

    /** True when a host transaction is active for this data source on this thread (Baton would join it). */
    public boolean inHostTransaction() {
        return hosts.current(dataSource) != null;
    }

    private <T> T withRetry(String operation, boolean transactional, SqlWork<T> work, SqlWork<T> afterLostReply) {
        HostTransaction host = hosts.current(dataSource);
        if (host != null) {
            return joined(operation, host, work);
        }
        return ownWithRetry(operation, transactional, work, afterLostReply);
    }

    /**
     * Runs {@code work} on the host transaction's connection: no commit, no rollback, no settings changed, no retry
     * (a transient failure has spoiled the host's transaction, which only its owner can roll back and run again).
     */
    private <T> T joined(String operation, HostTransaction host, SqlWork<T> work) {
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

    private <T> T ownWithRetry(String operation, boolean transactional, SqlWork<T> work, SqlWork<T> afterLostReply) {
        return ownWithRetry(operation, transactional, work, afterLostReply, null);
    }

    private <T> T ownWithRetry(
            String operation,
            boolean transactional,
            SqlWork<T> work,
            SqlWork<T> afterLostReply,
            @Nullable String releaseAfterEnd) {
        return ownWithRetry(operation, transactional, work, afterLostReply, releaseAfterEnd, null);
    }

    private <T> T ownWithRetry(
            String operation,
            boolean transactional,
            SqlWork<T> work,
            SqlWork<T> afterLostReply,
            @Nullable String releaseAfterEnd,
            @Nullable Consumer<Connection> afterCommit) {
        boolean lost = false;
        for (int attempt = 1; ; attempt++) {
            try {
                return once(transactional, lost, lost ? afterLostReply : work, null, releaseAfterEnd, afterCommit);
            } catch (SQLException e) {
                SqlError error = dialect.diagnostics().classify(e);
                // a read-only refusal counts as a lost reply too: an autocommit work's earlier statements may have
                // committed before the server was fenced
                lost |= error.failover();
                RetryPolicy policy = error.kind() == SqlError.Kind.CONFLICT ? conflictRetry : transientRetry;
                if (!error.retryable() || attempt >= policy.maxAttempts()) {
                    throw new DataAccessException(
                            operation + " failed" + (attempt > 1 ? " after " + attempt + " attempts" : ""), e);
                }
                int failed = attempt;
                fire(l -> l.onTransientRetry(operation, failed, e));
                log.debug("{}: transient failure on attempt {} ({}), retrying", operation, attempt, e.getMessage());
                sleep(policy.delayBefore(attempt, ThreadLocalRandom.current().nextDouble()));
            }
        }
    }

    /** The connection of the transaction this thread runs for Baton itself, if any. */
    private static final ThreadLocal<Connection> OWN_TRANSACTION = new ThreadLocal<>();

    /**
     * True when {@code c} is in a caller's transaction, not one Baton opened: an error that ends it loses the caller's
     * earlier writes, where one in Baton's own transaction loses nothing Baton does not roll back anyway.
     */
    public static boolean inCallersTransaction(Connection c) throws SQLException {
        return !c.getAutoCommit() && OWN_TRANSACTION.get() != c;
    }

    /**
     * Runs {@code work} once on a borrowed connection. After a failover error ({@code afterFailover}) the connection
     * is first asked whether its server still takes writes. A connection whose work fails with a failover error is
     * aborted before it goes back to the pool, so that the pool drops it rather than hand it out again.
     */
    private <T> T once(boolean transactional, boolean afterFailover, SqlWork<T> work) throws SQLException {
        return once(transactional, afterFailover, work, null);
    }

    /** As {@link #once(boolean, boolean, SqlWork)}; marks {@code watch} just before the COMMIT is sent. */
    private <T> T once(boolean transactional, boolean afterFailover, SqlWork<T> work, @Nullable Attempt<T> watch)
            throws SQLException {
        return once(transactional, afterFailover, work, watch, null);
    }

    /** As {@link #once(boolean, boolean, SqlWork, Attempt)}; runs {@code releaseAfterEnd} after the transaction. */
    private <T> T once(
            boolean transactional,
            boolean afterFailover,
            SqlWork<T> work,
            @Nullable Attempt<T> watch,
            @Nullable String releaseAfterEnd)
            throws SQLException {
        return once(transactional, afterFailover, work, watch, releaseAfterEnd, null);
    }

    /** As above; then {@code afterCommit} on the connection that committed, which must not throw. */
    private <T> T once(
            boolean transactional,
            boolean afterFailover,
            SqlWork<T> work,
            @Nullable Attempt<T> watch,
            @Nullable String releaseAfterEnd,
            @Nullable Consumer<Connection> afterCommit)
            throws SQLException {
        try (Connection c = borrow(afterFailover)) {
            try {
                T result = run(c, transactional, work, watch);
                if (afterCommit != null) {
                    afterCommit.accept(c);
                }
                return result;
            } catch (SQLException | RuntimeException | Error e) {
                if (failover(e)) {
                    abort(c, e);
                }
                throw e;
            } finally {
                if (releaseAfterEnd != null) {
                    releaseQuietly(c, releaseAfterEnd);
                }
            }
        }
    }

    /**
     * Releases a session's lock after its transaction ended; a connection that cannot run it has lost its session,
     * and the server released the lock with it.
     */
    private static void releaseQuietly(Connection c, String release) {
        try (Statement s = c.createStatement()) {
            s.execute(release);
        } catch (SQLException | RuntimeException e) {
            log.debug("releasing a lock after its transaction: {}", e.getMessage());
        }
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
        HostTransaction host = hosts.current(dataSource);
        if (host != null) {
            refuseReadOnly(operation, host);
            if (lock.releaseAfterEnd() != null) {
                throw new ConfigurationException(operation + " cannot join the caller's transaction on "
                        + dialect.name() + ": its claim lock is held by the session, not the transaction; claim"
                        + " outside a transaction");
            }
            return joined(operation, host, locked(lock, work));
        }
        return ownWithRetry(operation, true, locked(lock, work), locked(lock, afterLostReply), lock.releaseAfterEnd());
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

    /** How many read-only connections one borrow aborts before it gives up and uses the next one as it is. */
    private static final int MAX_READ_ONLY_EVICTIONS = 64;

    /**
     * A connection from the pool; after a failover error, one whose server takes writes: the pool may still hold
     * connections to a demoted primary (or a fenced one), each of which would refuse the retry. Each such connection
     * is aborted; after {@value #MAX_READ_ONLY_EVICTIONS} of them the next is used as it is (its refusal is then an
     * attempt of the retry policy).
     */
    private Connection borrow(boolean afterFailover) throws SQLException {
        Connection c = dataSource.getConnection();
        if (!afterFailover || readsOnly) {
            return c;
        }
        for (int evicted = 0; evicted < MAX_READ_ONLY_EVICTIONS; evicted++) {
            boolean readOnly;
            try {
                readOnly = dialect.diagnostics().refusesWrites(c);
            } catch (SQLException e) {
                abort(c, e);
                closeQuietly(c);
                throw e;
            }
            if (!readOnly) {
                return c;
            }
            log.debug("evicting a pooled connection whose server refuses writes (read-only after a failover)");
            SQLException readOnlyServer = new SQLException("the connection's server is read-only");
            abort(c, readOnlyServer);
            closeQuietly(c);
            c = dataSource.getConnection();
        }
        return c;
    }

    /** True when {@code failure} or a cause is an {@link SQLException} of a failover ({@link SqlError#failover()}). */
    private boolean failover(Throwable failure) {
        for (Throwable t = failure; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (t instanceof SQLException e) {
                return dialect.diagnostics().classify(e).failover();
            }
        }
        return false;
    }

    /**
     * Aborts the connection ({@link Connection#abort}: the driver closes its socket), so that the pool finds it broken
     * when it comes back and drops it (HikariCP evicts a connection whose reset fails with a connection error) rather
     * than hand it out again to a server that is gone or no longer the writer.
     */
    private static void abort(Connection c, Throwable primary) {
        try {
            c.abort(Runnable::run);
        } catch (SQLException | RuntimeException a) {
            primary.addSuppressed(a);
        }
    }

    private static void closeQuietly(Connection c) {
        try {
            c.close();
        } catch (SQLException | RuntimeException x) {
            log.debug("closing an aborted connection: {}", x.getMessage());
        }
    }

    private <T> T run(Connection c, boolean transactional, SqlWork<T> work, @Nullable Attempt<T> watch)
            throws SQLException {
        if (!transactional) {
            if (!c.getAutoCommit()) {
                c.setAutoCommit(true);
            }
            return work.run(c);
        }
        boolean restoreAutoCommit = c.getAutoCommit();
        boolean perTransaction = dialect.traits().isolationPerTransaction();
        int isolation = perTransaction ? Connection.TRANSACTION_READ_COMMITTED : readCommittedForSession(c);
        if (restoreAutoCommit) {
            c.setAutoCommit(false);
        }
        boolean autoCommitRestored = false;
        Connection outer = OWN_TRANSACTION.get();
        OWN_TRANSACTION.set(c);
        try {
            if (perTransaction) {
                // the level of this transaction only: a connection's level (pgjdbc's setTransactionIsolation sends
                // SET SESSION CHARACTERISTICS) is session state, which a transaction-mode pooler gives to whichever
                // client runs next on that server connection, and does not keep for this one
                try (Statement s = c.createStatement()) {
                    s.execute(SET_READ_COMMITTED);
                }
            }
            T result = work.run(c);
            if (watch != null) {
                watch.committing = true;
            }
            if (restoreAutoCommit) {
                // JDBC commits when autocommit is switched back on: one round trip on MySQL/MariaDB (SET
                // autocommit=1 commits) where COMMIT and then SET would take two; pgjdbc sends one COMMIT either
                // way
                c.setAutoCommit(true);
                autoCommitRestored = true;
            } else {
                c.commit();
            }
            return result;
        } catch (SQLException | RuntimeException | Error e) {
            rollbackQuietly(c, e);
            throw e;
        } finally {
            if (outer == null) {
                OWN_TRANSACTION.remove();
            } else {
                OWN_TRANSACTION.set(outer);
            }
            restore(c, restoreAutoCommit && !autoCommitRestored, isolation);
        }
    }

    /**
     * Puts the connection's session at READ COMMITTED when it is at another level, and answers the level to restore
     * afterwards.
     */
    private int readCommittedForSession(Connection c) throws SQLException {
        Connection physical = physical(c);
        // pgjdbc answers getTransactionIsolation() with a server round trip (SHOW TRANSACTION ISOLATION LEVEL):
        // asked once per physical connection found at READ COMMITTED, remembered while that connection lives
        int isolation = readCommitted.containsKey(physical)
                ? Connection.TRANSACTION_READ_COMMITTED
                : c.getTransactionIsolation();
        if (isolation != Connection.TRANSACTION_READ_COMMITTED) {
            c.setTransactionIsolation(Connection.TRANSACTION_READ_COMMITTED);
        } else {
            readCommitted.put(physical, Boolean.TRUE);
        }
        return isolation;
    }

    /**
     * The driver's connection behind a pool's proxy (HikariCP and the drivers answer {@code unwrap(Connection.class)}
     * with it), or {@code c} itself. A pool that hands out the same physical connection with another isolation level
     * than it had when Baton last saw it at READ COMMITTED must reset it on return, as HikariCP and DBCP do for a level
     * set through their proxy.
     */
    private static Connection physical(Connection c) {
        try {
            Connection inner = c.unwrap(Connection.class);
            return inner != null ? inner : c;
        } catch (SQLException e) {
            return c;
        }
    }

    private static void restore(Connection c, boolean autoCommit, int isolation) {
        try {
            if (autoCommit && !c.isClosed()) {
                c.setAutoCommit(true);
            }
            if (isolation != Connection.TRANSACTION_READ_COMMITTED && !c.isClosed()) {
                c.setTransactionIsolation(isolation);
            }
        } catch (SQLException e) {
            log.debug("could not restore connection settings: {}", e.getMessage());
        }
    }

    /** Rolls back, adding a failure of the rollback itself to {@code primary} as suppressed. */
    private static void rollbackQuietly(Connection c, Throwable primary) {
        try {
            c.rollback();
        } catch (SQLException r) {
            primary.addSuppressed(r);
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
        HostTransaction host = hosts.current(dataSource);
        if (host != null) {
            refuseReadOnly(operation, host);
        }
        return transaction || !dialect.traits().batchUpdateIsAtomic()
                ? transaction(operation, work, afterLostReply)
                : autocommit(operation, work, afterLostReply);
    }

    /**
     * Runs a bounded batch update on the data source, each batch as {@link #batchUpdate} does, until a batch comes back
     * short. A batch whose reply was lost is run again (the statement is guarded, so a batch that had committed is not
     * applied twice) but its count is unknown: the total is then a lower bound ({@link Drained#countInDoubt()}).
     */
    public Drained drain(String operation, BatchUpdate statement, int batchSize) {
        boolean[] lost = {false};
        SqlWork<Integer> work = c -> statement.execute(c, NO_ARGS).size();
        SqlWork<Integer> again = c -> {
            lost[0] = true;
            return statement.execute(c, NO_ARGS).size();
        };
        Drained d = drain(batchSize, () -> batchUpdate(operation, work, again));
        return new Drained(d.rows(), d.batches(), lost[0]);
    }

    /** Runs a bounded batch update on the caller's connection until a batch comes back short. */
    public static Drained drain(Connection c, BatchUpdate statement, int batchSize) throws SQLException {
        return drain(batchSize, () -> statement.execute(c, NO_ARGS).size());
    }

    /** Runs batches of at most {@code batchSize} rows until one comes back short. */
    public static <E extends Exception> Drained drain(int batchSize, Batch<E> batch) throws E {
        long rows = 0;
        int batches = 0;
        while (true) {
            int n = batch.run();
            rows += n;
            batches++;
            if (n < batchSize) {
                return new Drained(rows, batches, false);
            }
        }
    }

    /** One batch of a {@link #drain}: the rows it changed. */
    @FunctionalInterface
    public interface Batch<E extends Exception> {
        /** Runs the batch. */
        int run() throws E;
    }

    /**
     * What a {@link #drain} did: rows changed and batches run (the last one short); {@code countInDoubt} when a batch
     * lost its reply, so that {@code rows} is a lower bound (the lost batch may have committed rows it never reported).
     */
    public record Drained(long rows, int batches, boolean countInDoubt) {}

    /** Executes an update with {@code binds} on {@code c} and returns its update count. */
    public static int update(Connection c, String sql, List<Object> binds) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(sql)) {
            Rows.bind(ps, 1, binds);
            return ps.executeUpdate();
        }
    }

    /**
     * Runs an autocommit retention delete at READ COMMITTED when the connection is at another level than READ
     * COMMITTED or REPEATABLE READ, giving the connection its level back after: the delete may skip locked rows, and
     * SQL Server's READPAST fails at SNAPSHOT, SERIALIZABLE and READ UNCOMMITTED (error 650), levels a pool may hand
     * out.
     */
    public static int deleteAtReadCommitted(Connection c, String sql) throws SQLException {
        int level = c.getTransactionIsolation();
        // REPEATABLE READ allows READPAST too, and is MySQL's default: left as it is
        if (level == Connection.TRANSACTION_READ_COMMITTED || level == Connection.TRANSACTION_REPEATABLE_READ) {
            return update(c, sql, List.of());
        }
        c.setTransactionIsolation(Connection.TRANSACTION_READ_COMMITTED);
        try {
            return update(c, sql, List.of());
        } finally {
            if (!c.isClosed()) {
                c.setTransactionIsolation(level);
            }
        }
    }

    /**
     * Calls every listener, catching and logging what they throw: at once, or after the host transaction commits when
     * one is active on this thread (never, if it rolls back).
     */
    public void fire(Consumer<BatonListener> call) {
        if (listeners.isEmpty()) {
            return;
        }
        HostTransaction host = hosts.current(dataSource);
        if (host != null) {
            host.afterCommit(() -> fireNow(call));
        } else {
            fireNow(call);
        }
    }

    /**
     * Fires the listeners now, also inside a host transaction: for what Baton committed on a connection of its own,
     * which the host's rollback does not undo.
     */
    public void fireAfterOwnCommit(Consumer<BatonListener> call) {
        if (!listeners.isEmpty()) {
            fireNow(call);
        }
    }

    private void fireNow(Consumer<BatonListener> call) {
        for (BatonListener l : listeners) {
            try {
                call.accept(l);
            } catch (RuntimeException e) {
                log.warn("listener {} threw; ignored", l.getClass().getName(), e);
            }
        }
    }

    /**
     * A transition of {@code table} applied by this instance: recorded for the failover audit, when it is on, at once
     * (it committed in autocommit mode) or after the host transaction it joined commits (never, if that rolls back).
     */
    public <S extends Enum<S>> void applied(
            String table,
            String idColumn,
            String stateColumn,
            TableStatements<S> statements,
            Object id,
            List<S> sources,
            S target) {
        FailoverAudit a = audit;
        if (a == null) {
            return;
        }
        HostTransaction host = hosts.current(dataSource);
        if (host != null) {
            host.afterCommit(() -> a.applied(table, idColumn, stateColumn, statements, id, sources, target));
        } else {
            a.applied(table, idColumn, stateColumn, statements, id, sources, target);
        }
    }

    /** True when any listener is registered (lets hot paths skip building events). */
    public boolean hasListeners() {
        return !listeners.isEmpty();
    }

    /**
     * True when {@code failure} or one of its causes is an {@link SQLException} the dialect classifies as transient
     * (deadlock, serialization failure, lock timeout) or as a lost connection; also found among suppressed exceptions,
     * in the original failure a framework kept when its rollback failed, and as a closed connection in a rollback's
     * failure.
     */
    public boolean isTransient(Throwable failure) {
        return transientIn(failure, false, Collections.newSetFromMap(new IdentityHashMap<>()));
    }

    /**
     * Walks causes, suppressed exceptions and the application exception a framework kept beside the one it threw
     * (Spring's {@code TransactionSystemException.getApplicationException()}: when the rollback fails too, Spring
     * throws the rollback's failure in place of the original). A closed connection (a pool's "Connection is closed",
     * without an SQLState) is a lost connection in the failure of a rollback: the transaction never committed, and its
     * session is gone, so the server rolled it back.
     */
    private boolean transientIn(Throwable t, boolean inRollback, Set<Throwable> seen) {
        if (t == null || !seen.add(t)) {
            return false;
        }
        if (t instanceof SQLException e
                && (dialect.diagnostics().classify(e).retryable() || inRollback && closedConnection(e))) {
            return true;
        }
        boolean rollback = inRollback || mentionsRollback(t);
        if (transientIn(t.getCause(), rollback, seen)) {
            return true;
        }
        for (Throwable s : t.getSuppressed()) {
            if (transientIn(s, mentionsRollback(s), seen)) {
                return true;
            }
        }
        return transientIn(applicationException(t), false, seen);
    }

    private static boolean mentionsRollback(Throwable t) {
        String m = t.getMessage();
        if (m == null) {
            return false;
        }
        String lower = m.toLowerCase(java.util.Locale.ROOT);
        return lower.contains("rollback") || lower.contains("roll back");
    }

    private static boolean closedConnection(SQLException e) {
        String state = e.getSQLState();
        String m = e.getMessage();
        return (state == null || state.startsWith("08"))
                && m != null
                && m.toLowerCase(java.util.Locale.ROOT).contains("connection is closed");
    }

    /** The original failure a transaction framework kept when its rollback failed, or null. */
    private static Throwable applicationException(Throwable t) {
        try {
            java.lang.reflect.Method m = t.getClass().getMethod("getApplicationException");
            return m.getReturnType() == Throwable.class ? (Throwable) m.invoke(t) : null;
        } catch (ReflectiveOperationException | RuntimeException e) {
            return null;
        }
    }

    /**
     * Runs {@code work} in a READ COMMITTED transaction on a connection of its own, bound to this thread so that
     * data-source operations called inside join it; commits, then runs the listener calls deferred inside. Retries the
     * whole transaction (after a rollback) on a {@link #isTransient transient} failure, as the retry policy allows.
     * Inside a host transaction, runs {@code work} once on the host's connection instead (only the host's owner can
     * retry it).
     *
     * <p>A COMMIT whose reply was lost is never run blind again: each attempt first writes the call's receipt (see
     * {@link ReceiptStatements}); the retry after a lost COMMIT finds it when that COMMIT took effect, and then returns
     * what the committed attempt's work returned. Without a receipt table a lost COMMIT throws {@link
     * OutcomeInDoubtException}.
     */
    public <T> T inTransaction(String operation, SqlWork<T> work) {
        HostTransaction host = hosts.current(dataSource);
        if (host != null) {
            return joined(operation, host, work);
        }
        boolean withReceipt = receiptsPresent();
        long receipt = newReceipt();
        Attempt<T> inDoubt = null; // the attempt whose COMMIT reply was lost, while no later one has settled it
        boolean afterFailover = false;
        for (int attempt = 1; ; attempt++) {
            Attempt<T> current = new Attempt<>();
            try {
                T result = once(
                        true,
                        afterFailover,
                        c -> {
                            // the work is the caller's transaction, not Baton's own: an error that ends it (SQL
                            // Server's XACT_ABORT) loses the caller's earlier writes, so inCallersTransaction must say
                            // so
                            OWN_TRANSACTION.remove();
                            try (BoundTransactions.Bound bound = BoundTransactions.bind(dataSource, c)) {
                                if (withReceipt) {
                                    if (!receipts.insert(c, receipt)) {
                                        throw new PriorCommit();
                                    }
                                    current.receiptWritten = true;
                                }
                                T r = work.run(c);
                                current.afterCommit.addAll(bound.afterCommitActions());
                                current.result = r;
                                return r;
                            } finally {
                                OWN_TRANSACTION.set(c);
                            }
                        },
                        current,
                        null,
                        commitWait.off() ? null : c -> current.notDurable = commitWait.await(c, dialect.diagnostics()));
                if (current.notDurable != null) {
                    commitWait.reportNotDurable(this, operation, current.notDurable);
                    if (commitWait.required()) {
                        current.afterCommit.forEach(Runnable::run);
                        throw new dev.baton.CommitNotDurableException(operation, current.notDurable, result);
                    }
                }
                current.afterCommit.forEach(Runnable::run);
                if (withReceipt) {
                    purgeReceiptsNowAndThen();
                }
                return result;
            } catch (PriorCommit p) {
                if (inDoubt == null) {
                    // no attempt of this call reached COMMIT: the receipt is another call's (a 64-bit collision)
                    throw new dev.baton.BatonException(operation + ": receipt " + receipt + " is taken");
                }
                log.info(
                        "{}: the reply to COMMIT was lost; its receipt shows it took effect, not running it again",
                        operation);
                inDoubt.afterCommit.forEach(Runnable::run);
                if (!commitWait.off()) {
                    // the committing connection is gone: its commit's position is not known to this one
                    String why = "the reply to COMMIT was lost, so its position was not read";
                    commitWait.reportNotDurable(this, operation, why);
                    if (commitWait.required()) {
                        throw new dev.baton.CommitNotDurableException(operation, why, inDoubt.result);
                    }
                }
                return inDoubt.result;
            } catch (dev.baton.CommitNotDurableException e) {
                throw e;
            } catch (SQLException | RuntimeException e) {
                afterFailover |= failover(e);
                if (current.receiptWritten) {
                    inDoubt = null; // this attempt wrote the receipt: no earlier attempt committed
                }
                if (current.committing && lostConnection(e)) {
                    if (!withReceipt) {
                        throw new OutcomeInDoubtException(
                                operation + ": the connection was lost on COMMIT, so the transaction may have"
                                        + " committed; not run again. Create the receipt table ("
                                        + "baton.ownTables().createReceiptsTable(\"" + receiptsTable + "\")) to"
                                        + " have Baton read such a commit back",
                                e);
                    }
                    inDoubt = current;
                }
                RetryPolicy policy = retryFor(e);
                if (!isTransient(e) || attempt >= policy.maxAttempts()) {
                    if (inDoubt != null) {
                        throw new OutcomeInDoubtException(
                                operation + ": the reply to a COMMIT was lost and no later attempt could read its"
                                        + " receipt back; the transaction may have committed",
                                e);
                    }
                    if (e instanceof RuntimeException r) {
                        throw r;
                    }
                    throw new DataAccessException(
                            operation + " failed" + (attempt > 1 ? " after " + attempt + " attempts" : ""),
                            (SQLException) e);
                }
                int failed = attempt;
                fireNow(l -> l.onTransientRetry(operation, failed, e instanceof SQLException s ? s : sqlCause(e)));
                log.debug("{}: transient failure on attempt {} ({}), retrying", operation, attempt, e.getMessage());
                sleep(policy.delayBefore(attempt, ThreadLocalRandom.current().nextDouble()));
            }
        }
    }

    /** How many times a lost write conflict is tried in all, as a multiple of the transient policy's attempts. */
    static final int CONFLICT_ATTEMPTS_FACTOR = 4;

    /**
     * The retries of a lost write conflict: the transient policy with {@value #CONFLICT_ATTEMPTS_FACTOR} times its
     * attempts (6 become 24) and full jitter; a policy that never retries still never does. A conflict is likely to
     * recur at once: on a Galera cluster, claimers on different nodes all pick the head of the same queue, and only
     * one of them certifies per round (6 attempts ran out in the compatibility suite with 8 claimers on three nodes);
     * full jitter spreads the losers' next tries apart.
     */
    static RetryPolicy conflictRetry(RetryPolicy transientRetry) {
        int attempts = transientRetry.maxAttempts();
        return attempts == 1
                ? transientRetry
                : transientRetry
                        .maxAttempts(attempts * CONFLICT_ATTEMPTS_FACTOR)
                        .jitter(1.0);
    }

    /** The policy for {@code failure}: {@link #conflictRetry} for a lost write conflict, else the transient one. */
    private RetryPolicy retryFor(Throwable failure) {
        for (Throwable t = failure; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (t instanceof SQLException e) {
                return dialect.diagnostics().classify(e).kind() == SqlError.Kind.CONFLICT
                        ? conflictRetry
                        : transientRetry;
            }
        }
        return transientRetry;
    }

    /** One attempt of {@link #inTransaction}: what its work returned, and how far it got. */
    private static final class Attempt<T> {
        final List<Runnable> afterCommit = new java.util.ArrayList<>();

        @Nullable
        T result;

        boolean receiptWritten;
        boolean committing;

        /** Why a standby was not known to have this attempt's commit in time ({@link CommitWait}); null: it was. */
        @Nullable
        String notDurable;
    }

    /** The receipt of this call is in the table: an earlier attempt's COMMIT took effect. */
    private static final class PriorCommit extends RuntimeException {
        private static final long serialVersionUID = 1L;

        PriorCommit() {
            super(null, null, false, false);
        }
    }

    private boolean lostConnection(Throwable failure) {
        for (Throwable t = failure; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (t instanceof SQLException e
                    && dialect.diagnostics().classify(e).kind() == SqlError.Kind.CONNECTION_LOST) {
                return true;
            }
        }
        return false;
    }

    /** A random receipt, never 0. */
    public static long newReceipt() {
        long r;
        do {
            r = RECEIPT_RANDOM.nextLong();
        } while (r == 0);
        return r;
    }

    /** The receipt table's statements. */
    public ReceiptStatements receipts() {
        return receipts;
    }

    /** The receipt table's name. */
    public String receiptsTable() {
        return receiptsTable;
    }

    /**
     * True when the receipt table answers; asked once, and again at most once a minute while it does not (so a table
     * created while the service runs is found).
     */
    public boolean receiptsPresent() {
        if (receiptsFound) {
            return true;
        }
        long now = System.nanoTime();
        long probed = receiptsProbedAt;
        if (probed != 0 && now - probed < RECEIPT_PROBE_INTERVAL_NANOS) {
            return false;
        }
        receiptsProbedAt = now == 0 ? 1 : now;
        try (Connection c = dataSource.getConnection()) {
            if (!c.getAutoCommit()) {
                c.setAutoCommit(true);
            }
            receipts.probe(c);
            receiptsFound = true;
        } catch (SQLException e) {
            log.warn(
                    "no receipt table {} ({}): a transaction of Baton.inTransaction whose COMMIT reply is lost ends in"
                            + " OutcomeInDoubtException instead of being read back; create it with"
                            + " baton.ownTables().createReceiptsTable",
                    receiptsTable,
                    e.getMessage());
        }
        return receiptsFound;
    }

    /**
     * Deletes one batch of receipts older than an hour after a successful transaction, at most once a minute per
     * instance; while batches come back full, the next transaction deletes the next one. The caller pays for one
     * bounded batch at most, never for the whole backlog (after a start, or an hour of heavy use).
     */
    private void purgeReceiptsNowAndThen() {
        long now = System.nanoTime();
        long last = receiptsPurgedAt.get();
        if (now - last < RECEIPT_PURGE_INTERVAL_NANOS || !receiptsPurgedAt.compareAndSet(last, now)) {
            return;
        }
        try {
            String sql = receipts.deleteSql(RECEIPT_RETENTION);
            int deleted = autocommit("purge receipts", c -> deleteAtReadCommitted(c, sql));
            if (deleted >= receipts.deleteBatch()) {
                // more are left: the next transaction takes the next batch (unless another purge began meanwhile)
                receiptsPurgedAt.compareAndSet(now, now - RECEIPT_PURGE_INTERVAL_NANOS);
            }
        } catch (RuntimeException e) {
            log.warn("purging old receipts from {} failed; will try again: {}", receiptsTable, e.getMessage());
        }
    }

    private static SQLException sqlCause(Throwable failure) {
        for (Throwable t = failure; t != null; t = t.getCause()) {
            if (t instanceof SQLException e) {
                return e;
            }
        }
        return new SQLException(failure);
    }

    private static void sleep(Duration d) {
        try {
            Thread.sleep(d.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new dev.baton.BatonException("interrupted while waiting to retry", e);
        }
    }
}
