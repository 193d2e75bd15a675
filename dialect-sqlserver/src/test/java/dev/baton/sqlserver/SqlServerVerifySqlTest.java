package dev.baton.sqlserver;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.baton.Baton;
import dev.baton.ClaimQueue;
import dev.baton.Condition;
import dev.baton.StateTable;
import dev.baton.testkit.compat.Bill;
import dev.baton.testkit.compat.Payment;
import dev.baton.testkit.compat.Sync;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The {@code CREATE TABLE} that {@code verify()} hands over for a missing table, on SQL Server, which cannot run here:
 * pinned by exact text and parsed as T-SQL. The shared {@code AbstractVerifyCompatibilityTest} runs it for real
 * wherever {@code BATON_TEST_SQLSERVER_URL} is set.
 */
class SqlServerVerifySqlTest {
    private final Baton baton = Baton.builder(new SqlServerSqlTest.NoConnections())
            .dialect(new SqlServerDialect())
            .build();
    private final StateTable<Payment> orders = baton.table("orders").state("payment_status", Payment.MACHINE);

    @Test
    void aTransitionBindingGetsItsIdStateAndUsedColumns() {
        List<String> ddl = orders.createTableSql("payment_transaction_id", "paid_at");
        assertEquals(
                List.of("CREATE TABLE [orders] ([id] BIGINT NOT NULL PRIMARY KEY, [payment_status] INT NOT NULL,"
                        + " [payment_transaction_id] VARCHAR(64), [paid_at] DATETIME2(6))"),
                ddl);
        ddl.forEach(SqlServerSqlTest::parse);

        StateTable<Bill> bills = baton.table("billing.bills").id("bill_id").state("status", Bill.MACHINE);
        List<String> text = bills.createTableSql();
        assertEquals(
                List.of("CREATE TABLE [billing].[bills] ([bill_id] BIGINT NOT NULL PRIMARY KEY,"
                        + " [status] VARCHAR(64) NOT NULL)"),
                text);
        text.forEach(SqlServerSqlTest::parse);
    }

    @Test
    void aClaimQueueGetsItsManagedAndConditionColumnsAndTheClaimIndex() {
        ClaimQueue<Sync> q = baton.<Sync>queue("order-sync")
                .table("orders")
                .claim("sync_status", Sync.MACHINE, Sync.PENDING, Sync.PROCESSING)
                .eligibleWhen(orders.is(Payment.PAID), Condition.isNull("third_party_guid"))
                .select("payment_transaction_id")
                .ageColumn("created_at")
                .deadState(Sync.FAILED)
                .build();
        List<String> ddl = q.createTableSql("pushed_at");
        assertEquals(
                List.of(
                        "CREATE TABLE [orders] ([id] BIGINT NOT NULL PRIMARY KEY, [sync_status] INT NOT NULL,"
                                + " [lease_until] DATETIME2(6), [claim_token] BIGINT, [attempts] INT NOT NULL DEFAULT 0,"
                                + " [next_attempt_at] DATETIME2(6), [last_error] NVARCHAR(4000), [payment_status] INT,"
                                + " [third_party_guid] VARCHAR(64), [created_at] DATETIME2(6),"
                                + " [payment_transaction_id] VARCHAR(64), [pushed_at] DATETIME2(6))",
                        // the guard's other column, lease, backoff and attempts ride along: rows the claim or the
                        // sweep rejects are never looked up, and so never locked in the table
                        "CREATE INDEX [ix_orders_order_sync_claim] ON [orders] ([sync_status], [payment_status], [id])"
                                + " INCLUDE ([third_party_guid], [lease_until], [next_attempt_at], [attempts])"),
                ddl);
        assertEquals(q.suggestedIndex(), ddl.get(1));
        SqlServerSqlTest.parse(ddl.get(0));
        // Druid knows no INCLUDE: the index without it (the independent parse reads it whole)
        SqlServerSqlTest.parse(ddl.get(1).substring(0, ddl.get(1).indexOf(" INCLUDE (")));
    }
}
