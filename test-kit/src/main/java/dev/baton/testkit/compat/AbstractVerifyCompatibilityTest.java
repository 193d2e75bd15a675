package dev.baton.testkit.compat;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.baton.Baton;
import dev.baton.ClaimQueue;
import dev.baton.ClaimedRow;
import dev.baton.Condition;
import dev.baton.LeaseResult;
import dev.baton.Outcome;
import dev.baton.SchemaMismatchException;
import dev.baton.StateTable;
import dev.baton.TransitionResult;
import dev.baton.testkit.DatabaseSuite;
import dev.baton.testservers.TestDatabase;
import dev.baton.testservers.TestDatabases;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * What {@code verify()} hands over, run by every dialect module against real servers: for a missing table a whole
 * {@code CREATE TABLE} (and the claim's index) that makes the binding pass {@code verify()} once run as printed; the
 * columns a queue's conditions name and the columns the code says it writes are checked, with the {@code ALTER TABLE}
 * that adds them; a column missing at run time is a {@link SchemaMismatchException} naming table and column, not a
 * generic database failure. A dialect runs it as {@code @Nested class Verify extends AbstractVerifyCompatibilityTest
 * {}}; each test works in tables of its own.
 */
public abstract class AbstractVerifyCompatibilityTest extends DatabaseSuite {
    private TestDatabase db;
    private Baton baton;
    private final List<String> tables = new ArrayList<>();

    @Override
    protected void setUp() {
        db = database();
        baton = Baton.using(db.dataSource());
    }

    @Override
    protected void tearDown() {
        for (String t : tables) {
            db.dropTableIfExists(t);
        }
    }

    private String newTableName(String prefix) {
        String name = TestDatabases.uniqueName(prefix);
        tables.add(name);
        return name;
    }

    /** Runs the DDL an exception carries, exactly as printed. */
    private void run(List<String> ddl) {
        db.execute(ddl.toArray(new String[0]));
    }

    @Test
    void aMissingTableOfATransitionBindingGetsTheCreateTableThatPassesVerify() {
        String table = newTableName("vt_orders");
        StateTable<Payment> orders = baton.table(table).id("id").state("payment_status", Payment.MACHINE);

        SchemaMismatchException e = assertThrows(SchemaMismatchException.class, orders::verify);
        assertEquals(List.of("table " + table + " does not exist"), e.problems());
        assertEquals(1, e.ddl().size(), e.getMessage());
        assertTrue(e.ddl().get(0).startsWith("CREATE TABLE "), e.getMessage());
        assertTrue(e.getMessage().contains(e.ddl().get(0)), e.getMessage());
        run(e.ddl());

        orders.verify();
        db.execute("INSERT INTO " + table + " (id, payment_status) VALUES (1, " + Payment.PENDING.code() + ")");
        assertInstanceOf(
                TransitionResult.Applied.class,
                orders.transition(1L, Payment.PENDING, Payment.PAID).apply());
    }

    @Test
    void aMissingTableOfAStringCodedBindingGetsTheColumnsTheCodeNames() {
        String table = newTableName("vt_bills");
        StateTable<Bill> bills = baton.table(table).id("bill_id").state("status", Bill.MACHINE);

        SchemaMismatchException e =
                assertThrows(SchemaMismatchException.class, () -> bills.verify("payment_transaction_id", "paid_at"));
        assertEquals(bills.createTableSql("payment_transaction_id", "paid_at"), e.ddl());
        assertTrue(e.ddl().get(0).contains("paid_at"), e.getMessage());
        run(e.ddl());

        bills.verify("payment_transaction_id", "paid_at");
        db.execute("INSERT INTO " + table + " (bill_id, status) VALUES (7, 'paying')");
        assertInstanceOf(
                TransitionResult.Applied.class,
                bills.transition(7L, Bill.PAYING, Bill.PAID)
                        .set("payment_transaction_id", "tx-7")
                        .setNow("paid_at")
                        .apply());
        assertEquals(Optional.of(Bill.PAID), bills.currentState(7L));
    }

    private ClaimQueue<Sync> syncQueue(String table, Condition... eligible) {
        StateTable<Payment> orders = baton.table(table).state("payment_status", Payment.MACHINE);
        return baton.<Sync>queue("verify-sync")
                .table(table)
                .claim("sync_status", Sync.MACHINE, Sync.PENDING, Sync.PROCESSING)
                .eligibleWhen(orders.is(Payment.PAID))
                .eligibleWhen(eligible)
                .select("payment_transaction_id")
                .ageColumn("created_at")
                .deadState(Sync.FAILED)
                .lease(Duration.ofMinutes(1))
                .build();
    }

    @Test
    void aMissingTableOfAClaimQueueGetsTheCreateTableAndTheClaimIndexThatPassVerify() {
        String table = newTableName("vt_jobs");
        ClaimQueue<Sync> queue = syncQueue(
                table,
                Condition.isNull("third_party_guid"),
                Condition.olderThan("created_at", Duration.ZERO),
                Condition.eq("region", "eu"));

        SchemaMismatchException e = assertThrows(SchemaMismatchException.class, queue::verify);
        assertEquals(List.of("table " + table + " does not exist"), e.problems());
        assertEquals(List.of(queue.createTableSql().get(0), queue.suggestedIndex()), e.ddl(), e.getMessage());
        for (String column : List.of(
                "sync_status",
                "payment_status",
                "lease_until",
                "claim_token",
                "attempts",
                "next_attempt_at",
                "last_error",
                "third_party_guid",
                "created_at",
                "region",
                "payment_transaction_id")) {
            assertTrue(
                    e.ddl().get(0).contains(column), column + " in " + e.ddl().get(0));
        }
        run(e.ddl());

        queue.verify();
        db.execute("INSERT INTO " + table + " (id, sync_status, payment_status, region, created_at) VALUES (1, "
                + Sync.PENDING.code() + ", " + Payment.PAID.code() + ", 'eu', "
                + db.kind().minutesAgo(5) + ")");
        List<ClaimedRow<Sync>> claimed = queue.claim(10);
        assertEquals(1, claimed.size());
        assertInstanceOf(
                LeaseResult.Done.class,
                queue.apply(claimed.get(0), Outcome.complete(Sync.COMPLETED).set("third_party_guid", "g-1")));
    }

    @Test
    void aConditionOnAMissingColumnFailsVerifyNamingItWithTheAlterTable() {
        String table = newTableName("vt_cond");
        run(syncQueue(table).createTableSql());
        ClaimQueue<Sync> queue = syncQueue(table, Condition.isNull("third_party_guid"));

        SchemaMismatchException e = assertThrows(SchemaMismatchException.class, queue::verify);
        assertEquals(1, e.problems().size(), e.getMessage());
        assertTrue(e.problems().get(0).contains("third_party_guid"), e.getMessage());
        assertTrue(e.problems().get(0).contains("eligibleWhen"), e.getMessage());
        assertEquals(1, e.ddl().size(), e.getMessage());
        assertTrue(e.ddl().get(0).startsWith("ALTER TABLE "), e.getMessage());
        assertTrue(e.ddl().get(0).contains("third_party_guid"), e.getMessage());
        run(e.ddl());

        queue.verify();
    }

    @Test
    void aColumnMissingAtRunTimeIsASchemaMismatchNamingTableAndColumn() throws SQLException {
        String table = newTableName("vt_set");
        StateTable<Payment> orders = baton.table(table).state("payment_status", Payment.MACHINE);
        run(orders.createTableSql());
        db.execute("INSERT INTO " + table + " (id, payment_status) VALUES (1, " + Payment.PENDING.code() + "), (2, "
                + Payment.PENDING.code() + ")");

        SchemaMismatchException onDataSource =
                assertThrows(SchemaMismatchException.class, () -> orders.transition(1L, Payment.PENDING, Payment.PAID)
                        .setNow("paid_at")
                        .apply());
        assertNamesTableAndColumn(onDataSource, table, "paid_at");

        try (Connection c = db.connect()) {
            c.setAutoCommit(false);
            SchemaMismatchException inTransaction = assertThrows(
                    SchemaMismatchException.class, () -> orders.transition(1L, Payment.PENDING, Payment.PAID)
                            .set("payment_transaction_id", "tx-1")
                            .apply(c));
            assertNamesTableAndColumn(inTransaction, table, "payment_transaction_id");
            // the caller's transaction is still usable (PostgreSQL: the statement ran under a savepoint)
            assertInstanceOf(
                    TransitionResult.Applied.class,
                    orders.transition(1L, Payment.PENDING, Payment.PAID).apply(c));
            c.commit();
        }

        SchemaMismatchException bulk =
                assertThrows(SchemaMismatchException.class, () -> orders.bulk(Payment.PENDING, Payment.EXPIRED)
                        .setNow("expired_at")
                        .apply());
        assertNamesTableAndColumn(bulk, table, "expired_at");
        assertEquals(Optional.of(Payment.PENDING), orders.currentState(2L));

        SchemaMismatchException verify =
                assertThrows(SchemaMismatchException.class, () -> orders.verify("paid_at", "expired_at"));
        assertEquals(2, verify.ddl().size(), verify.getMessage());
        assertTrue(verify.ddl().get(0).startsWith("ALTER TABLE ")
                && verify.ddl().get(0).contains("paid_at"));
        run(verify.ddl());
        orders.verify("paid_at", "expired_at");
        assertInstanceOf(
                TransitionResult.Applied.class,
                orders.transition(2L, Payment.PENDING, Payment.PAID)
                        .setNow("paid_at")
                        .apply());
    }

    @Test
    void anOutcomeSettingAMissingColumnIsASchemaMismatch() {
        String table = newTableName("vt_out");
        ClaimQueue<Sync> queue = syncQueue(table);
        run(queue.createTableSql());
        queue.verify();
        db.execute("INSERT INTO " + table + " (id, sync_status, payment_status) VALUES (1, " + Sync.PENDING.code()
                + ", " + Payment.PAID.code() + ")");
        ClaimedRow<Sync> row = queue.claim(1).get(0);

        SchemaMismatchException e = assertThrows(
                SchemaMismatchException.class,
                () -> queue.apply(row, Outcome.complete(Sync.COMPLETED).set("pushed_guid", "g")));
        assertNamesTableAndColumn(e, table, "pushed_guid");
        SchemaMismatchException verify = assertThrows(SchemaMismatchException.class, () -> queue.verify("pushed_guid"));
        assertTrue(verify.ddl().get(0).contains("pushed_guid"), verify.getMessage());
        assertInstanceOf(LeaseResult.Done.class, queue.complete(row, Sync.COMPLETED));
    }

    /**
     * On a loaded, analysed table where every row is eligible, the planner prefers walking the primary key
     * (the first rows it meets are claimable), and {@code verify()} refused the claim index it had suggested itself.
     * Its advice must be one it accepts, loaded or empty; without a claim index it still refuses.
     */
    @Test
    void theSuggestedIndexPassesVerifyOnALoadedAnalysedTable() throws SQLException {
        String table = newTableName("vt_load");
        ClaimQueue<Sync> queue = syncQueue(table);
        run(List.of(queue.createTableSql().get(0)));
        insertEligible(table, LOADED);
        db.execute(db.kind().analyzeSql(table));

        SchemaMismatchException e = assertThrows(SchemaMismatchException.class, queue::verify);
        assertEquals(List.of(queue.suggestedIndex()), e.ddl(), e.getMessage());
        run(e.ddl());
        db.execute(db.kind().analyzeSql(table));

        queue.verify();
        assertEquals(10, queue.claim(10).size());
    }

    /** The same with the README's claim index, {@code (sync_status, payment_status, id)}. */
    @Test
    void theReadmeClaimIndexPassesVerifyOnALoadedAnalysedTable() throws SQLException {
        String table = newTableName("vt_readme");
        ClaimQueue<Sync> queue = syncQueue(table);
        run(List.of(queue.createTableSql().get(0)));
        insertEligible(table, LOADED);
        db.execute("CREATE INDEX ix_" + table + "_rd ON " + table + " (sync_status, payment_status, id)");
        db.execute(db.kind().analyzeSql(table));

        queue.verify();
    }

    private static final int LOADED = 20_000;

    /** Inserts rows 1..count, all eligible (PAID, sync PENDING). */
    private void insertEligible(String table, int count) throws SQLException {
        try (Connection c = db.connect()) {
            c.setAutoCommit(false);
            try (java.sql.PreparedStatement ps = c.prepareStatement("INSERT INTO " + table
                    + " (id, sync_status, payment_status, created_at) VALUES (?, " + Sync.PENDING.code() + ", "
                    + Payment.PAID.code() + ", " + db.kind().now() + ")")) {
                for (int id = 1; id <= count; id++) {
                    ps.setLong(1, id);
                    ps.addBatch();
                    if (id % 1000 == 0) {
                        ps.executeBatch();
                    }
                }
                ps.executeBatch();
            }
            c.commit();
        }
    }

    private static void assertNamesTableAndColumn(SchemaMismatchException e, String table, String column) {
        assertTrue(e.getMessage().contains("table " + table + " "), e.getMessage());
        assertEquals(
                List.of("column " + column + " does not exist; verify() lists every missing column with its DDL"),
                e.problems());
        assertInstanceOf(SQLException.class, e.getCause());
    }
}
