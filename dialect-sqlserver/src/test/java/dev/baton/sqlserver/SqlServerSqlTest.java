package dev.baton.sqlserver;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import com.alibaba.druid.DbType;
import com.alibaba.druid.sql.SQLUtils;
import dev.baton.Baton;
import dev.baton.Condition;
import dev.baton.InvalidIdentifierException;
import dev.baton.StateTable;
import dev.baton.testkit.compat.Payment;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * SQL Server cannot run here; its SQL is pinned by exact text and parsed as T-SQL. The shared compatibility suite runs
 * it for real wherever {@code BATON_TEST_SQLSERVER_URL} is set.
 */
class SqlServerSqlTest {
    private final Baton baton =
            Baton.builder(new NoConnections()).dialect(new SqlServerDialect()).build();
    private final StateTable<Payment> orders = baton.table("orders").state("payment_status", Payment.MACHINE);

    @Test
    void transitionIsOneGuardedUpdate() throws Exception {
        String sql = orders.transition(1L, Payment.PENDING, Payment.PAID)
                .set("payment_transaction_id", "tx")
                .setNow("paid_at")
                .sql();
        assertEquals(
                "UPDATE [orders] SET [payment_status] = ?, [payment_transaction_id] = ?, [paid_at] = SYSUTCDATETIME()"
                        + " WHERE [id] = ? AND [payment_status] = 0",
                sql);
        parse(sql);
        String any = orders.transition(1L, Payment.EXPIRED).sql();
        assertEquals("UPDATE [orders] SET [payment_status] = ? WHERE [id] = ? AND [payment_status] = 0", any);
    }

    @Test
    void bulkUpdatesTopNSkippingLockedRows() throws Exception {
        List<String> sql = orders.bulk(Payment.PENDING, Payment.EXPIRED)
                .where(Condition.olderThan("created_at", Duration.ofMinutes(15)))
                .batchSize(200)
                .sql();
        assertEquals(
                List.of(
                        "UPDATE TOP (200) [orders] WITH (UPDLOCK, READPAST, ROWLOCK, READCOMMITTEDLOCK) SET [payment_status] = ?"
                                + " WHERE [payment_status] = 0 AND [created_at] < DATEADD(millisecond, -900000,"
                                + " SYSUTCDATETIME())"),
                sql);
        parse(sql.get(0));
        assertThrows(dev.baton.ConfigurationException.class, () -> orders.bulk(Payment.PENDING, Payment.EXPIRED)
                .batchSize(501));
    }

    @Test
    void claimIsOneUpdateThroughAnOrderedCteWithReadpastAndOutput() {
        dev.baton.ClaimQueue<dev.baton.testkit.compat.Sync> q = baton.<dev.baton.testkit.compat.Sync>queue("order-sync")
                .table("orders")
                .claim(
                        "sync_status",
                        dev.baton.testkit.compat.Sync.MACHINE,
                        dev.baton.testkit.compat.Sync.PENDING,
                        dev.baton.testkit.compat.Sync.PROCESSING)
                .eligibleWhen(orders.is(Payment.PAID), Condition.isNull("third_party_guid"))
                .select("payment_transaction_id")
                .deadState(dev.baton.testkit.compat.Sync.FAILED)
                .lease(Duration.ofMinutes(2))
                .build();
        List<String> sql = q.claimSql(50);
        String guard = "[sync_status] = 0 AND [payment_status] = 1 AND [third_party_guid] IS NULL AND"
                + " ([next_attempt_at] IS NULL OR [next_attempt_at] <= SYSUTCDATETIME()) AND [attempts] < ?";
        assertEquals(
                List.of(
                        "WITH baton_claim AS (SELECT TOP (50) * FROM [orders] WITH (UPDLOCK, READPAST, ROWLOCK, READCOMMITTEDLOCK) WHERE "
                                + guard
                                + " ORDER BY [sync_status], [payment_status], [id]) UPDATE baton_claim SET [sync_status] = ?,"
                                + " [lease_until] ="
                                + " DATEADD(millisecond, 120000, SYSUTCDATETIME()), [claim_token] = ?, [attempts] ="
                                + " [attempts] + 1 OUTPUT inserted.[id], inserted.[attempts],"
                                + " inserted.[payment_transaction_id], deleted.[sync_status], deleted.[payment_status], deleted.[id]"
                                + " WHERE " + guard),
                sql);
        parse(sql.get(0));
        assertThrows(dev.baton.ConfigurationException.class, () -> q.claimSql(501), "SQL Server batches stop at 500");
        assertEquals(500, q.maxBatchSize());
    }

    @Test
    void outboxTableAndItsOrderedClaim() throws Exception {
        List<String> ddl = baton.ownTables().outboxDdl("baton_outbox");
        assertEquals(
                "CREATE UNIQUE INDEX [baton_outbox_dedup] ON [baton_outbox] ([dedup_key]) WHERE [dedup_key] IS NOT NULL",
                ddl.get(1));
        String claim = baton.outbox("baton_outbox").queue().claimSql(20).get(0);
        assertEquals(
                "WITH baton_claim AS (SELECT TOP (20) * FROM [baton_outbox] WITH (UPDLOCK, READPAST, ROWLOCK, READCOMMITTEDLOCK) WHERE"
                        + " [status] = 0 AND ([next_attempt_at] IS NULL OR [next_attempt_at] <= SYSUTCDATETIME()) AND"
                        + " [attempts] < ? AND NOT EXISTS (SELECT 1 FROM [baton_outbox] baton_prior WHERE baton_prior.[msg_key] ="
                        + " [baton_outbox].[msg_key] AND baton_prior.[id] < [baton_outbox].[id] AND baton_prior.[status]"
                        + " IN (0, 1, 3)) ORDER BY [status], [id]) UPDATE baton_claim SET [status] = ?, [lease_until] ="
                        + " DATEADD(millisecond, 60000, SYSUTCDATETIME()), [claim_token] = ?, [attempts] = [attempts] + 1"
                        + " OUTPUT inserted.[id], inserted.[attempts], inserted.[topic], inserted.[msg_key],"
                        + " inserted.[dedup_key], inserted.[headers], inserted.[payload], inserted.[created_at],"
                        + " deleted.[status], deleted.[id] WHERE [status] = 0 AND"
                        + " ([next_attempt_at] IS NULL OR [next_attempt_at] <= SYSUTCDATETIME()) AND [attempts] < ?",
                claim);
        parse(claim);
    }

    @Test
    void aClosingBracketInANameIsDoubled() {
        assertEquals("[a]]b]", new SqlServerSql().quote("a]b"));
    }

    @Test
    void namesAreBracketQuotedAndValidated() {
        assertThrows(InvalidIdentifierException.class, () -> baton.table("a]b"));
        assertThrows(InvalidIdentifierException.class, () -> baton.table("x".repeat(129)));
        assertEquals(
                "UPDATE [app].[order] SET [user] = ? WHERE [select] = ? AND [user] = 0",
                baton.table("app.order")
                        .id("select")
                        .state("user", Payment.MACHINE)
                        .transition(1L, Payment.PENDING, Payment.PAID)
                        .sql());
    }

    enum Shipment {
        NEW,
        SHIPPED,
        LOST
    }

    /**
     * A text state guard is exact. Default collations ignore case and {@code =} ignores trailing
     * spaces, so the guard adds a binary-collation match with the code's byte length in the column's own type
     * (CHAR and NCHAR included: there the padded code and the padded value have one length).
     */
    @Test
    void textStateGuardIsExactInCaseAndTrailingSpaces() {
        StateTable<Shipment> shipments = baton.table("shipments")
                .state(
                        "status",
                        dev.baton.StateMachine.of(Shipment.class)
                                .allow(Shipment.NEW, Shipment.SHIPPED, Shipment.LOST)
                                .allow(Shipment.SHIPPED, Shipment.LOST)
                                .terminal(Shipment.LOST)
                                .build());
        String one = shipments.transition(1L, Shipment.NEW, Shipment.SHIPPED).sql();
        // the code in the column's own type: a CHAR(n) column pads it as it pads the value, so DATALENGTH matches
        String exactNew = "[status] COLLATE Latin1_General_100_BIN2 = 'NEW' AND DATALENGTH([status]) ="
                + " DATALENGTH(ISNULL(NULLIF([status], [status]), 'NEW'))";
        assertEquals("UPDATE [shipments] SET [status] = ? WHERE [id] = ? AND [status] = 'NEW' AND " + exactNew, one);
        parse(one);
        String two = shipments.transition(1L, Shipment.LOST).sql();
        assertEquals(
                "UPDATE [shipments] SET [status] = ? WHERE [id] = ? AND [status] IN ('NEW', 'SHIPPED') AND (("
                        + exactNew + ") OR ([status] COLLATE Latin1_General_100_BIN2 = 'SHIPPED' AND"
                        + " DATALENGTH([status]) = DATALENGTH(ISNULL(NULLIF([status], [status]), 'SHIPPED'))))",
                two);
        parse(two);
    }

    /**
     * Parses T-SQL with Druid's SQL Server grammar, and applies {@link TsqlStrict}'s rules, which Druid does not
     * enforce; throws on anything it cannot parse completely.
     */
    static void parse(String tsql) {
        assertEquals(1, SQLUtils.parseStatements(tsql, DbType.sqlserver).size(), tsql);
        assertEquals(List.of(), TsqlStrict.problems(tsql), tsql);
        SqlRecorder.SEEN.add(tsql); // parsed: the independent parse reads it again
    }

    @Test
    void theParseCheckRejectsBrokenTsql() {
        assertThrows(RuntimeException.class, () -> parse("UPDATE [orders] SET [s] = ? WHERE [s] IN (?, ?"));
        assertThrows(RuntimeException.class, () -> parse("UPDATE [orders] SET [s] = ? WHERE AND [s] = ?"));
        // Druid accepts ORDER BY before UNION; SQL Server answers error 156 (learn.microsoft.com, UNION, example C)
        assertThrows(
                AssertionError.class,
                () -> parse("SELECT TOP (1) [a] FROM [t] ORDER BY [a] UNION ALL SELECT [b] FROM [u]"));
        parse(
                "SELECT x.[a] FROM (SELECT TOP (1) [a] FROM [t] ORDER BY [a]) x UNION ALL SELECT [b] FROM [u] ORDER BY 1");
        // READPAST alone fails under READ_COMMITTED_SNAPSHOT at READ COMMITTED (error 650)
        assertEquals(
                1,
                TsqlStrict.problems("DELETE TOP (500) FROM [t] WITH (ROWLOCK, READPAST) WHERE [a] = 1")
                        .size());
    }

    /** A data source for rendering only: Baton never connects when the dialect is given. */
    static final class NoConnections implements dev.baton.testservers.ConnectionSource {
        @Override
        public Connection getConnection() throws SQLException {
            throw new SQLException("rendering only");
        }
    }
}
