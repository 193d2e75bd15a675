package dev.baton.sqlserver;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.baton.Baton;
import dev.baton.ClaimQueue;
import dev.baton.DataAccessException;
import dev.baton.testkit.compat.Sync;
import java.io.PrintWriter;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLSyntaxErrorException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.logging.Logger;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;

/**
 * The dead-letter operations' SQL on SQL Server, which cannot run here: each statement is recorded as the driver would
 * receive it (the connection refuses it after recording), pinned by exact text and parsed as T-SQL.
 */
class SqlServerDeadLetterSqlTest {
    private final List<String> sent = new ArrayList<>();
    private final ClaimQueue<Sync> queue = Baton.builder(new Recording(sent))
            .dialect(new SqlServerDialect())
            .build()
            .<Sync>queue("order-sync")
            .table("orders")
            .claim("sync_status", Sync.MACHINE, Sync.PENDING, Sync.PROCESSING)
            .select("payment_transaction_id")
            .deadState(Sync.FAILED)
            .lease(Duration.ofMinutes(2))
            .build();

    private String only(Runnable call) {
        sent.clear();
        assertThrows(DataAccessException.class, call::run);
        assertEquals(1, sent.size(), sent.toString());
        SqlServerSqlTest.parse(sent.get(0));
        return sent.get(0);
    }

    @Test
    void deadRowsAreReadLowestIdFirstWithTheirReasonAndABound() {
        assertEquals(
                "SELECT TOP (10) [id], [attempts], [last_error], [payment_transaction_id] FROM [orders] WHERE"
                        + " [sync_status] = 3 ORDER BY [id]",
                only(() -> queue.deadLetters().list(10)));
        assertEquals(
                "SELECT TOP (10) [id], [attempts], [last_error], [payment_transaction_id] FROM [orders] WHERE"
                        + " [sync_status] = 3 AND [id] > ? ORDER BY [id]",
                only(() -> queue.deadLetters().listAfter(5L, 10)));
        assertEquals(
                "SELECT COUNT(*) FROM (SELECT TOP (5000) 1 AS baton_one FROM [orders] WHERE [sync_status] = 3)"
                        + " baton_counted",
                only(() -> queue.deadLetters().count(5000)));
    }

    /** The unknown sends' page and count, and the held keys of a queue ordered per key, are bounded by TOP too. */
    @Test
    void unknownSendsAndHeldKeysAreReadWithABound() {
        ClaimQueue<Sync> sending = Baton.builder(new Recording(sent))
                .dialect(new SqlServerDialect())
                .build()
                .<Sync>queue("order-send")
                .table("orders")
                .claim("sync_status", Sync.MACHINE, Sync.PENDING, Sync.PROCESSING)
                .deadState(Sync.FAILED)
                .nonIdempotentSink(Sync.SENDING, Sync.UNKNOWN)
                .orderedPerKey("customer_id")
                .lease(Duration.ofMinutes(2))
                .build();
        assertEquals(
                "SELECT TOP (50) [id], [attempts], [last_error], [lease_until], CASE WHEN [lease_until] IS NULL OR"
                        + " [lease_until] < SYSUTCDATETIME() THEN 1 ELSE 0 END FROM [orders] WHERE [sync_status] = 5"
                        + " AND [id] > ? ORDER BY [id]",
                only(() -> sending.unknownSends().listAfter(7L, 50)));
        assertEquals(
                "SELECT COUNT(*) FROM (SELECT TOP (100) 1 AS baton_one FROM [orders] WHERE [sync_status] = 5)"
                        + " baton_counted",
                only(() -> sending.unknownSends().count(100)));
        String holding = "FROM [orders] baton_row WHERE baton_row.[sync_status] IN (3, 5) AND baton_row.[customer_id]"
                + " IS NOT NULL AND NOT EXISTS (SELECT 1 FROM [orders] baton_prior WHERE baton_prior.[customer_id] ="
                + " baton_row.[customer_id] AND baton_prior.[id] < baton_row.[id] AND baton_prior.[sync_status] IN"
                + " (3, 5))";
        assertEquals(
                "SELECT TOP (20) baton_row.[customer_id], baton_row.[id], baton_row.[sync_status],"
                        + " baton_row.[attempts], baton_row.[last_error] " + holding + " AND baton_row.[id] > ? ORDER"
                        + " BY baton_row.[id]",
                only(() -> sending.blockedKeys().listAfter(7L, 20)));
        assertEquals(
                "SELECT COUNT(*) FROM (SELECT TOP (100) 1 AS baton_one " + holding + ") baton_counted",
                only(() -> sending.blockedKeys().count(100)));
    }

    @Test
    void aRequeueIsGuardedByTheDeadStateAndStartsTheRowAfresh() {
        assertEquals(
                "UPDATE [orders] SET [sync_status] = ?, [lease_until] = NULL, [claim_token] = NULL, [attempts] = 0,"
                        + " [next_attempt_at] = NULL WHERE [id] = ? AND [sync_status] = 3",
                only(() -> queue.deadLetters().requeue(1L)));
    }

    @Test
    void requeueAllDeadIsOneBoundedUpdateSkippingLockedRows() {
        assertEquals(
                "WITH baton_claim AS (SELECT TOP (100) * FROM [orders] WITH (UPDLOCK, READPAST, ROWLOCK, READCOMMITTEDLOCK) WHERE"
                        + " [sync_status] = 3 ORDER BY [id]) UPDATE baton_claim SET [sync_status] = ?, [lease_until] ="
                        + " NULL, [claim_token] = NULL, [attempts] = 0, [next_attempt_at] = NULL WHERE [sync_status] = 3",
                only(() -> queue.deadLetters().requeueAll(100)),
                "the dead-state guard is repeated in the update: a row requeued meanwhile is not touched");
    }

    /** With a non-idempotent sink, both requeues leave rows that may have been sent dead unless asked. */
    @Test
    void aSendingQueuesRequeuesSkipRowsThatMayHaveBeenSentUnlessAsked() {
        ClaimQueue<Sync> sending = Baton.builder(new Recording(sent))
                .dialect(new SqlServerDialect())
                .build()
                .<Sync>queue("order-send")
                .table("orders")
                .claim("sync_status", Sync.MACHINE, Sync.PENDING, Sync.PROCESSING)
                .deadState(Sync.FAILED)
                .nonIdempotentSink(Sync.SENDING, Sync.UNKNOWN)
                .lease(Duration.ofMinutes(2))
                .build();
        String fresh = "[sync_status] = ?, [lease_until] = NULL, [claim_token] = NULL, [attempts] = 0,"
                + " [next_attempt_at] = NULL";
        assertEquals(
                "UPDATE [orders] SET " + fresh + " WHERE [id] = ? AND [sync_status] = 3 AND ([last_error] IS NULL OR"
                        + " [last_error] NOT LIKE ?)",
                only(() -> sending.deadLetters().requeue(1L)));
        assertEquals(
                "UPDATE [orders] SET " + fresh + " WHERE [id] = ? AND [sync_status] = 3",
                only(() -> sending.deadLetters().requeue(1L, dev.baton.DeadRow.Requeue.EVEN_IF_MAYBE_SENT)));
        assertEquals(
                "WITH baton_claim AS (SELECT TOP (100) * FROM [orders] WITH (UPDLOCK, READPAST, ROWLOCK, READCOMMITTEDLOCK) WHERE"
                        + " [sync_status] = 3 AND ([last_error] IS NULL OR [last_error] NOT LIKE ?) ORDER BY [id])"
                        + " UPDATE baton_claim SET " + fresh + " WHERE [sync_status] = 3 AND ([last_error] IS NULL OR"
                        + " [last_error] NOT LIKE ?)",
                only(() -> sending.deadLetters().requeueAll(100)));
    }

    /** A data source whose connections record each statement and refuse it as a syntax error (not retried). */
    private static final class Recording implements DataSource {
        private final List<String> sent;

        Recording(List<String> sent) {
            this.sent = sent;
        }

        @Override
        public Connection getConnection() {
            return (Connection) Proxy.newProxyInstance(
                    Connection.class.getClassLoader(), new Class<?>[] {Connection.class}, (proxy, method, args) -> {
                        switch (method.getName()) {
                            case "prepareStatement", "prepareCall" -> {
                                sent.add((String) args[0]);
                                throw new SQLSyntaxErrorException("recorded, not run", "42000", 102);
                            }
                            case "getAutoCommit", "isClosed", "isReadOnly" -> {
                                return false;
                            }
                            case "getTransactionIsolation" -> {
                                return Connection.TRANSACTION_READ_COMMITTED;
                            }
                            case "isValid" -> {
                                return true;
                            }
                            case "unwrap", "isWrapperFor" -> throw new SQLException("not a wrapper");
                            case "hashCode" -> {
                                return System.identityHashCode(proxy);
                            }
                            case "equals" -> {
                                return proxy == args[0];
                            }
                            case "toString" -> {
                                return "recording connection";
                            }
                            default -> {
                                return null;
                            }
                        }
                    });
        }

        @Override
        public Connection getConnection(String user, String password) {
            return getConnection();
        }

        @Override
        public PrintWriter getLogWriter() {
            return null;
        }

        @Override
        public void setLogWriter(PrintWriter out) {}

        @Override
        public void setLoginTimeout(int seconds) {}

        @Override
        public int getLoginTimeout() {
            return 0;
        }

        @Override
        public Logger getParentLogger() {
            return Logger.getGlobal();
        }

        @Override
        public <T> T unwrap(Class<T> type) throws SQLException {
            throw new SQLException("not a wrapper");
        }

        @Override
        public boolean isWrapperFor(Class<?> type) {
            return false;
        }
    }
}
