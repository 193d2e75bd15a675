package dev.baton.internal.tx;

import dev.baton.spi.Diagnostics;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Collections;
import java.util.Map;
import java.util.WeakHashMap;
import java.util.function.Consumer;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One attempt of a unit of work on one connection: borrowed from the pool (after a failover, one whose server takes
 * writes), at READ COMMITTED per transaction or per session, committed, rolled back or aborted, and given back as it
 * was. Thread-safe.
 */
public final class Connections {
    private static final Logger log = LoggerFactory.getLogger(Connections.class);

    /** The first statement of an own transaction where {@link dev.baton.spi.DialectTraits#isolationPerTransaction()}. */
    private static final String SET_READ_COMMITTED = "SET TRANSACTION ISOLATION LEVEL READ COMMITTED";

    /** How many read-only connections one borrow aborts before it gives up and uses the next one as it is. */
    private static final int MAX_READ_ONLY_EVICTIONS = 64;

    /** The connection of the transaction this thread runs for Baton itself, if any. */
    private static final ThreadLocal<Connection> OWN_TRANSACTION = new ThreadLocal<>();

    private final DataSource dataSource;
    private final Diagnostics diagnostics;
    private final Failures failures;
    private final boolean isolationPerTransaction;
    /** A reader's connections: never asked whether their server takes writes (a standby never does). */
    private final boolean readsOnly;

    /** Physical connections seen at READ COMMITTED, weakly held (a closed connection drops out). */
    private final Map<Connection, Boolean> readCommitted = Collections.synchronizedMap(new WeakHashMap<>());

    /**
     * Attempts on {@code dataSource}; {@code isolationPerTransaction} as the dialect's traits say; {@code readsOnly}
     * for a reader, whose server is never asked whether it takes writes.
     */
    public Connections(
            DataSource dataSource,
            Diagnostics diagnostics,
            Failures failures,
            boolean isolationPerTransaction,
            boolean readsOnly) {
        this.dataSource = dataSource;
        this.diagnostics = diagnostics;
        this.failures = failures;
        this.isolationPerTransaction = isolationPerTransaction;
        this.readsOnly = readsOnly;
    }

    /** The data source the attempts borrow from. */
    public DataSource dataSource() {
        return dataSource;
    }

    /**
     * True when {@code c} is in a caller's transaction, not one Baton opened: an error that ends it loses the caller's
     * earlier writes, where one in Baton's own transaction loses nothing Baton does not roll back anyway.
     */
    public static boolean inCallersTransaction(Connection c) throws SQLException {
        return !c.getAutoCommit() && OWN_TRANSACTION.get() != c;
    }

    /**
     * Runs {@code work} as the caller's transaction on {@code c} inside one of Baton's own attempts (the body of
     * {@code Baton.inTransaction}): an error that ends it (SQL Server's XACT_ABORT) loses the caller's earlier writes,
     * so {@link #inCallersTransaction} must say so while it runs.
     */
    public static <T> T asCallersTransaction(Connection c, SqlWork<T> work) throws SQLException {
        OWN_TRANSACTION.remove();
        try {
            return work.run(c);
        } finally {
            OWN_TRANSACTION.set(c);
        }
    }

    /**
     * Runs {@code work} once on a borrowed connection, in autocommit mode or in one READ COMMITTED transaction that it
     * commits or, when the work ends it so, rolls back. After a failover error ({@code afterFailover}) the connection
     * is first asked whether its server still takes writes. A connection whose work fails with a failover error is
     * aborted before it goes back to the pool, so that the pool drops it rather than hand it out again.
     *
     * @param mark set just before the COMMIT is sent (null: not watched)
     * @param releaseAfterEnd a statement run after the transaction ended, e.g. a session lock's release (null: none)
     * @param afterCommit run on the connection that committed, before it goes back to the pool; must not throw
     */
    public <T> T once(
            boolean transactional,
            boolean afterFailover,
            TransactionWork<T> work,
            @Nullable CommitMark mark,
            @Nullable String releaseAfterEnd,
            @Nullable Consumer<Connection> afterCommit)
            throws SQLException {
        try (Connection c = borrow(afterFailover)) {
            try {
                Ending<T> end = transactional ? inTransaction(c, work, mark) : autocommit(c, work);
                if (afterCommit != null && !end.rollBack()) {
                    afterCommit.accept(c);
                }
                return end.value();
            } catch (SQLException | RuntimeException | Error e) {
                if (failures.failover(e)) {
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
                readOnly = diagnostics.refusesWrites(c);
            } catch (SQLException e) {
                abort(c, e);
                closeQuietly(c);
                throw e;
            }
            if (!readOnly) {
                return c;
            }
            log.debug("evicting a pooled connection whose server refuses writes (read-only after a failover)");
            abort(c, new SQLException("the connection's server is read-only"));
            closeQuietly(c);
            c = dataSource.getConnection();
        }
        return c;
    }

    private static <T> Ending<T> autocommit(Connection c, TransactionWork<T> work) throws SQLException {
        if (!c.getAutoCommit()) {
            c.setAutoCommit(true);
        }
        return work.run(c);
    }

    private <T> Ending<T> inTransaction(Connection c, TransactionWork<T> work, @Nullable CommitMark mark)
            throws SQLException {
        boolean restoreAutoCommit = c.getAutoCommit();
        int isolation = isolationPerTransaction ? Connection.TRANSACTION_READ_COMMITTED : readCommittedForSession(c);
        if (restoreAutoCommit) {
            c.setAutoCommit(false);
        }
        boolean autoCommitRestored = false;
        Connection outer = OWN_TRANSACTION.get();
        OWN_TRANSACTION.set(c);
        try {
            if (isolationPerTransaction) {
                // the level of this transaction only: a connection's level (pgjdbc's setTransactionIsolation sends
                // SET SESSION CHARACTERISTICS) is session state, which a transaction-mode pooler gives to whichever
                // client runs next on that server connection, and does not keep for this one
                try (Statement s = c.createStatement()) {
                    s.execute(SET_READ_COMMITTED);
                }
            }
            Ending<T> end = work.run(c);
            if (end.rollBack()) {
                // the work wrote nothing it needs: a failed rollback loses nothing, and the value stands
                try {
                    c.rollback();
                } catch (SQLException r) {
                    log.debug("rolling back a transaction that wrote nothing: {}", r.getMessage());
                }
                return end;
            }
            if (mark != null) {
                mark.committing();
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
            return end;
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
}
