package dev.baton.mysql;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.zaxxer.hikari.HikariDataSource;
import dev.baton.Baton;
import dev.baton.ClaimQueue;
import dev.baton.testkit.compat.JobsTable;
import dev.baton.testkit.compat.Payment;
import dev.baton.testkit.compat.Sync;
import dev.baton.testservers.TestDatabase;
import dev.baton.testservers.TestServer;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import javax.sql.DataSource;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The sweep that dead-letters claimable rows with their attempts used up reads every claimable row (no index serves
 * attempts). As a locking read ({@code SELECT … FOR UPDATE SKIP LOCKED}) it made InnoDB lock each row it read: with a
 * backlog of 1.4 million rows the lock structures filled the shared MariaDB 10.11's 128 MB buffer pool and the server
 * aborted ("Over 95 percent of the buffer pool is occupied by lock heaps", signal 6, during the {@code
 * worker-interleaved} bench). Here the rows its transaction holds locked are read from {@code INNODB_TRX} on its own
 * connection, after each statement of the sweep: at most the rows it moves, whatever the backlog (before: 6,000 row
 * locks, a secondary and a clustered record for each of the 3,000 claimable rows, to move 3; on a private MariaDB
 * 10.11 the same read over 1.4 million claimable rows held 2.8 million row locks until its transaction ended, and
 * every claimer skipped them).
 */
class MySqlSweepLockTest {
    private static final int HISTORY = 20_000;
    private static final int BACKLOG = 3_000;
    private static final int SPENT = 3;

    @ParameterizedTest(name = "{0}")
    @EnumSource(
            value = TestServer.class,
            names = {"MARIADB_LOCAL", "MARIADB_EMBEDDED"})
    void theSweepOfSpentClaimableRowsLocksOnlyWhatItMoves(TestServer server) throws Exception {
        TestDatabase db = server.get();
        JobsTable jobs = JobsTable.create(db, "sl_jobs", true);
        try (HikariDataSource pool = db.newDataSource(2)) {
            jobs.insert(1, HISTORY + BACKLOG, Payment.PAID);
            // a delivered history, so that the claimable rows are read through the claim index as in a real queue (on
            // a table of claimable rows only InnoDB scans the primary key, and READ COMMITTED lets the others go)
            db.execute("UPDATE " + jobs.name() + " SET sync_status = 2, attempts = 1 WHERE id <= " + HISTORY);
            // rows a host put back with their attempts used up (maxAttempts is 10 by default)
            db.execute("UPDATE " + jobs.name() + " SET attempts = 10 WHERE id > " + (HISTORY + BACKLOG - SPENT));
            db.execute("ANALYZE TABLE " + jobs.name());
            AtomicLong mostLocked = new AtomicLong();
            Baton baton = Baton.using(watching(pool, mostLocked));
            ClaimQueue<Sync> q = jobs.queue(baton, Duration.ofSeconds(60));
            long moved = q.reclaimExpired();
            assertEquals(SPENT, moved, "the spent rows are dead-lettered");
            assertEquals(BACKLOG - SPENT, jobs.countBySync().getOrDefault(Sync.PENDING, 0), "the backlog is untouched");
            assertTrue(
                    mostLocked.get() <= SPENT,
                    "the sweep's transaction held " + mostLocked.get() + " row locks for " + SPENT + " rows to move,"
                            + " over a backlog of " + BACKLOG);
        } finally {
            jobs.drop();
        }
    }

    /** {@code pool}, reading after each statement how many rows the connection's transaction holds locked. */
    private static DataSource watching(HikariDataSource pool, AtomicLong mostLocked) {
        return (DataSource) Proxy.newProxyInstance(
                DataSource.class.getClassLoader(), new Class<?>[] {DataSource.class}, (p, m, args) -> {
                    Object r = invoke(pool, m, args);
                    if (!m.getName().equals("getConnection")) {
                        return r;
                    }
                    Connection c = (Connection) r;
                    return Proxy.newProxyInstance(
                            Connection.class.getClassLoader(), new Class<?>[] {Connection.class}, (pc, cm, cargs) -> {
                                Object s = invoke(c, cm, cargs);
                                if (!cm.getName().equals("prepareStatement")) {
                                    return s;
                                }
                                PreparedStatement ps = (PreparedStatement) s;
                                return Proxy.newProxyInstance(
                                        PreparedStatement.class.getClassLoader(),
                                        new Class<?>[] {PreparedStatement.class},
                                        (pp, sm, sargs) -> {
                                            Object out = invoke(ps, sm, sargs);
                                            if (sm.getName().startsWith("execute")) {
                                                // the driver has read the whole result: the read's locks are taken
                                                mostLocked.accumulateAndGet(rowsLocked(c), Math::max);
                                            }
                                            return out;
                                        });
                            });
                });
    }

    private static long rowsLocked(Connection c) throws Exception {
        // InnoDB refreshes what INNODB_TRX shows at most every 100 ms (TRX_I_S_CACHE_MIN_REFRESH_TIME)
        Thread.sleep(150);
        try (Statement st = c.createStatement();
                ResultSet rs = st.executeQuery("SELECT COALESCE(MAX(trx_rows_locked), 0) FROM"
                        + " information_schema.INNODB_TRX WHERE trx_mysql_thread_id = CONNECTION_ID()")) {
            rs.next();
            return rs.getLong(1);
        }
    }

    private static Object invoke(Object target, java.lang.reflect.Method m, Object[] args) throws Throwable {
        try {
            return m.invoke(target, args);
        } catch (InvocationTargetException e) {
            throw e.getCause();
        }
    }
}
