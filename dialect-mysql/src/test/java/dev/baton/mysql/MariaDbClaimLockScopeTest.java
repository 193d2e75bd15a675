package dev.baton.mysql;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.zaxxer.hikari.HikariDataSource;
import dev.baton.Baton;
import dev.baton.ClaimQueue;
import dev.baton.ClaimedRow;
import dev.baton.testkit.compat.Sync;
import dev.baton.testservers.TestDatabase;
import dev.baton.testservers.TestDatabases;
import dev.baton.testservers.TestServer;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;

/**
 * A queue with a per-key limit serialises its claims with a named lock, and MariaDB's {@code GET_LOCK} names are
 * server-wide: the same queue over a table of the same name in two databases of one server is two queues, whose
 * claims must not wait for each other. Here a claim in the first database stalls while it holds its lock; a claim in
 * the second goes on meanwhile.
 */
class MariaDbClaimLockScopeTest {
    private static final String SECOND = "sw_second";
    private static final long BOUND_SECONDS = 20;

    @Test
    void theSameQueueInTwoDatabasesOfOneServerDoesNotShareItsClaimLock() throws Exception {
        TestDatabase db = TestServer.MARIADB_LOCAL.get();
        String table = TestDatabases.uniqueName("sw_lock");
        db.execute("CREATE DATABASE IF NOT EXISTS " + SECOND);
        CountDownLatch holding = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        ExecutorService threads = Executors.newFixedThreadPool(2);
        try (HikariDataSource first = db.newDataSource(2);
                HikariDataSource second = new HikariDataSource()) {
            second.setJdbcUrl(db.jdbcUrl().replaceFirst("(//[^/]+/)[^?;]*", "$1" + SECOND));
            second.setUsername(db.user());
            second.setPassword(db.password());
            second.setMaximumPoolSize(2);
            for (DataSource ds : List.<DataSource>of(first, second)) {
                try (Connection c = ds.getConnection();
                        Statement s = c.createStatement()) {
                    s.execute("CREATE TABLE " + table + " (id BIGINT NOT NULL PRIMARY KEY, sync_status INT NOT NULL,"
                            + " acct VARCHAR(20) NOT NULL, lease_until DATETIME(6) NULL, claim_token BIGINT NULL,"
                            + " attempts INT NOT NULL DEFAULT 0, next_attempt_at DATETIME(6) NULL,"
                            + " last_error VARCHAR(1000) NULL)");
                    s.execute("INSERT INTO " + table + " (id, sync_status, acct) VALUES (1, 0, 'a')");
                }
            }
            ClaimQueue<Sync> stalled = queue(Baton.using(stallingAfterTheLock(first, holding, release)), table);
            ClaimQueue<Sync> other = queue(Baton.using(second), table);
            Future<List<ClaimedRow<Sync>>> firstClaim = threads.submit(() -> stalled.claim(1));
            assertTrue(holding.await(BOUND_SECONDS, TimeUnit.SECONDS), "the first claim took its lock");
            Future<List<ClaimedRow<Sync>>> secondClaim = threads.submit(() -> other.claim(1));
            List<ClaimedRow<Sync>> claimed;
            try {
                claimed = secondClaim.get(BOUND_SECONDS, TimeUnit.SECONDS);
            } catch (TimeoutException e) {
                throw new AssertionError("a claim in database " + SECOND + " waited " + BOUND_SECONDS + " s for the"
                        + " claim lock a claim of the same queue in database test held");
            } finally {
                release.countDown();
            }
            assertEquals(1, claimed.size(), "the second database's row");
            assertEquals(1, firstClaim.get(BOUND_SECONDS * 4, TimeUnit.SECONDS).size(), "the first database's row");
        } finally {
            release.countDown();
            threads.shutdownNow();
            db.execute("DROP TABLE IF EXISTS " + table, "DROP DATABASE IF EXISTS " + SECOND);
        }
    }

    private static ClaimQueue<Sync> queue(Baton baton, String table) {
        return baton.<Sync>queue("per-key-" + table)
                .table(table)
                .claim("sync_status", Sync.MACHINE, Sync.PENDING, Sync.PROCESSING)
                .deadState(Sync.FAILED)
                .lease(Duration.ofSeconds(60))
                .concurrencyPerKey("acct", 1)
                .build();
    }

    /** {@code pool}, whose statements that take a {@code GET_LOCK} count {@code holding} down and wait for release. */
    private static DataSource stallingAfterTheLock(DataSource pool, CountDownLatch holding, CountDownLatch release) {
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
                                if (!cm.getName().equals("createStatement")) {
                                    return s;
                                }
                                Statement st = (Statement) s;
                                return Proxy.newProxyInstance(
                                        Statement.class.getClassLoader(),
                                        new Class<?>[] {Statement.class},
                                        (ps, sm, sargs) -> {
                                            Object out = invoke(st, sm, sargs);
                                            if (sm.getName().equals("execute")
                                                    && sargs != null
                                                    && String.valueOf(sargs[0]).contains("GET_LOCK")) {
                                                holding.countDown();
                                                release.await(BOUND_SECONDS * 2, TimeUnit.SECONDS);
                                            }
                                            return out;
                                        });
                            });
                });
    }

    private static Object invoke(Object target, Method m, Object[] args) throws Throwable {
        try {
            return m.invoke(target, args);
        } catch (InvocationTargetException e) {
            throw e.getCause();
        }
    }
}
