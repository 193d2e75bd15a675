package dev.baton.sqlserver;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.baton.Baton;
import dev.baton.StateTable;
import dev.baton.TransactionRolledBackException;
import dev.baton.TransitionResult;
import dev.baton.testkit.compat.Payment;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * With {@code SET XACT_ABORT ON} a unique violation (2627) rolls back the caller's whole transaction.
 * Baton asks the session after the violation, by this exact SQL, and throws a typed error instead of a {@code
 * Conflict} over a transaction that is gone. The driver's answers are scripted here (the error SQL Server sends, the
 * row the probe returns); the text is what a SQL Server would receive.
 */
class SqlServerXactAbortTest {
    private static final String UPDATE = "UPDATE [orders] SET [payment_status] = ?, [payment_transaction_id] = ? WHERE"
            + " [id] = ? AND [payment_status] = 0";

    private static SqlRecorder recorder(int xactAbortBit, int xactState) {
        SqlRecorder r = new SqlRecorder(
                1,
                text -> text.equals(SqlServerDiagnostics.TRANSACTION_STATE_SQL)
                        ? List.<Object[]>of(new Object[] {xactAbortBit, xactState})
                        : List.<Object[]>of());
        r.failure = text -> text.startsWith("UPDATE [orders]")
                ? new SQLException(
                        "Violation of UNIQUE KEY constraint 'uq_orders_tx'. Cannot insert duplicate key in object"
                                + " 'dbo.orders'.",
                        "23000",
                        2627)
                : null;
        return r;
    }

    private static StateTable<Payment> orders(SqlRecorder r) {
        return Baton.builder(r.dataSource())
                .dialect(new SqlServerDialect())
                .build()
                .table("orders")
                .state("payment_status", Payment.MACHINE);
    }

    @Test
    void aUniqueViolationUnderXactAbortInACallersTransactionThrows() throws Exception {
        SqlRecorder r = recorder(SqlServerDiagnostics.XACT_ABORT, 0);
        try (Connection c = r.dataSource().getConnection()) {
            c.setAutoCommit(false);
            TransactionRolledBackException e = assertThrows(TransactionRolledBackException.class, () -> orders(r)
                    .transition(1L, Payment.PENDING, Payment.PAID)
                    .set("payment_transaction_id", "tx")
                    .apply(c));
            assertTrue(e.getMessage().contains("XACT_ABORT"), e.getMessage());
            assertEquals(2627, e.vendorCode());
        }
        assertEquals(List.of(UPDATE, "SELECT CAST(@@OPTIONS & 16384 AS INT), XACT_STATE()"), r.take());
    }

    @Test
    void withoutXactAbortTheTransactionLivesAndTheResultIsAConflict() throws Exception {
        SqlRecorder r = recorder(0, 1);
        try (Connection c = r.dataSource().getConnection()) {
            c.setAutoCommit(false);
            TransitionResult<Payment> result = orders(r)
                    .transition(1L, Payment.PENDING, Payment.PAID)
                    .set("payment_transaction_id", "tx")
                    .apply(c);
            assertInstanceOf(TransitionResult.Conflict.class, result);
            assertEquals("uq_orders_tx", ((TransitionResult.Conflict<Payment>) result).constraint());
        }
        assertEquals(2, r.take().size(), "the update and the probe");
    }

    @Test
    void inAutocommitModeThereIsNoCallersTransactionToAskAbout() throws Exception {
        SqlRecorder r = recorder(SqlServerDiagnostics.XACT_ABORT, 0);
        try (Connection c = r.dataSource().getConnection()) {
            assertInstanceOf(
                    TransitionResult.Conflict.class,
                    orders(r)
                            .transition(1L, Payment.PENDING, Payment.PAID)
                            .set("payment_transaction_id", "tx")
                            .apply(c));
        }
        assertEquals(List.of(UPDATE), r.take());
    }

    @Test
    void inBatonsOwnTransactionAConflictLosesNothingOfTheCallers() {
        SqlRecorder r = recorder(SqlServerDiagnostics.XACT_ABORT, 0);
        Baton baton =
                Baton.builder(r.dataSource()).dialect(new SqlServerDialect()).build();
        StateTable<Payment> orders = baton.table("orders").state("payment_status", Payment.MACHINE);
        TransitionResult<Payment> result = baton.outbox("baton_outbox")
                .transitionAndEnqueue(
                        orders.transition(1L, Payment.PENDING, Payment.PAID).set("payment_transaction_id", "tx"),
                        dev.baton.Message.of("payments", "paid"));
        assertInstanceOf(TransitionResult.Conflict.class, result);
        assertEquals(List.of(UPDATE), r.take(), "no probe: Baton rolls its own transaction back");
    }

    /**
     * The work of {@code Baton.inTransaction} is the caller's transaction; a violation that
     * ended it must not come back as a {@code Conflict} while the work's later statements commit alone.
     */
    @Test
    void insideInTransactionTheWorkIsTheCallersTransaction() {
        SqlRecorder r = recorder(SqlServerDiagnostics.XACT_ABORT, 0);
        Baton baton =
                Baton.builder(r.dataSource()).dialect(new SqlServerDialect()).build();
        StateTable<Payment> orders = baton.table("orders").state("payment_status", Payment.MACHINE);
        TransactionRolledBackException e = assertThrows(
                TransactionRolledBackException.class,
                () -> baton.inTransaction(c -> orders.transition(1L, Payment.PENDING, Payment.PAID)
                        .set("payment_transaction_id", "tx")
                        .apply()));
        assertEquals(2627, e.vendorCode());
        assertEquals(
                List.of(UPDATE, "SELECT CAST(@@OPTIONS & 16384 AS INT), XACT_STATE()"),
                r.take().stream()
                        .filter(sql -> !sql.contains("[baton_receipts]")) // inTransaction's receipt, before the work
                        .toList(),
                "the probe ran, once: a rolled-back transaction is not retried");
    }

    @Test
    void aDoomedTransactionHasEndedToo() {
        assertTrue(SqlServerDiagnostics.transactionEnded(SqlServerDiagnostics.XACT_ABORT, 0));
        assertTrue(SqlServerDiagnostics.transactionEnded(0, -1));
        assertFalse(SqlServerDiagnostics.transactionEnded(0, 1));
        assertFalse(SqlServerDiagnostics.transactionEnded(512, 1), "NOCOUNT is another bit");
        SqlServerSqlTest.parse(SqlServerDiagnostics.TRANSACTION_STATE_SQL);
    }

    /**
     * Without XACT_ABORT a unique violation raised in a trigger (which runs under XACT_ABORT ON) still rolls the
     * caller's transaction back: {@code XACT_STATE()} answers 0, no transaction, and the result is no Conflict.
     */
    @Test
    void noTransactionLeftAfterTheErrorHasEndedItWithoutXactAbort() throws Exception {
        assertTrue(SqlServerDiagnostics.transactionEnded(0, 0));
        SqlRecorder r = recorder(0, 0);
        try (Connection c = r.dataSource().getConnection()) {
            c.setAutoCommit(false);
            assertThrows(TransactionRolledBackException.class, () -> orders(r)
                    .transition(1L, Payment.PENDING, Payment.PAID)
                    .set("payment_transaction_id", "tx")
                    .apply(c));
        }
    }
}
