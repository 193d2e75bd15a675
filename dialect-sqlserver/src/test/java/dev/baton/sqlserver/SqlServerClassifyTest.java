package dev.baton.sqlserver;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.baton.spi.SqlError;
import java.sql.SQLException;
import org.junit.jupiter.api.Test;

/** Error classification by SQL Server error number, with mssql-jdbc's messages (no server runs here). */
class SqlServerClassifyTest {
    private final SqlServerDialect d = new SqlServerDialect();

    @Test
    void classifiesByErrorNumber() {
        assertEquals(
                SqlError.uniqueViolation("UQ_orders_txn"),
                d.diagnostics()
                        .classify(new SQLException(
                                "Violation of UNIQUE KEY constraint 'UQ_orders_txn'. Cannot insert duplicate"
                                        + " key in object 'dbo.orders'. The duplicate key value is (tx-1).",
                                "23000",
                                2627)));
        assertEquals(
                SqlError.uniqueViolation("ux_orders_txn"),
                d.diagnostics()
                        .classify(new SQLException(
                                "Cannot insert duplicate key row in object 'dbo.orders' with unique index"
                                        + " 'ux_orders_txn'. The duplicate key value is (tx-1).",
                                "23000",
                                2601)));
        assertEquals(
                SqlError.TRANSIENT,
                d.diagnostics().classify(new SQLException("chosen as the deadlock victim", "40001", 1205)));
        assertEquals(
                SqlError.TRANSIENT,
                d.diagnostics().classify(new SQLException("Lock request time out period exceeded", "S00051", 1222)));
        assertEquals(
                SqlError.CONNECTION_LOST, d.diagnostics().classify(new SQLException("Connection reset", "08S01", 0)));
        assertEquals(
                SqlError.undefinedColumn("paid_at"),
                d.diagnostics().classify(new SQLException("Invalid column name 'paid_at'.", "S0001", 207)));
        assertEquals(
                SqlError.OTHER, d.diagnostics().classify(new SQLException("Invalid object name 'x'.", "S0002", 208)));
    }

    /**
     * Azure SQL's transient errors (learn.microsoft.com, "Troubleshoot transient connection errors"), lock-table
     * exhaustion and availability-group failover are retried. Failover errors need a new connection (the old one
     * points at a replica that is no longer primary).
     */
    @Test
    void retriesAzureTransientFailoverAndLockExhaustion() {
        for (int code : new int[] {40197, 40501, 40613, 49918, 49919, 49920, 10928, 10929, 1204}) {
            assertEquals(
                    SqlError.TRANSIENT,
                    d.diagnostics().classify(new SQLException("error " + code, "S0001", code)),
                    "error " + code);
        }
        assertEquals(
                SqlError.READ_ONLY,
                d.diagnostics()
                        .classify(new SQLException(
                                "Failed to update database \"orders\" because the database is read-only.",
                                "S0001",
                                3906)));
        for (int code : new int[] {976, 983}) {
            assertEquals(
                    SqlError.CONNECTION_LOST,
                    d.diagnostics().classify(new SQLException("error " + code, "S0001", code)),
                    "error " + code);
        }
    }

    @Test
    void aQueryTimeoutIsTransientAndOnlyTheValuesOwnErrorsRefuseValues() {
        assertEquals(
                SqlError.TRANSIENT,
                d.diagnostics().classify(new java.sql.SQLTimeoutException("The query has timed out.", "HY008")));
        assertEquals(
                SqlError.VALUE_REFUSED,
                d.diagnostics()
                        .classify(new SQLException(
                                "The UPDATE statement conflicted with the CHECK constraint \"ck\".", "23000", 547)));
        assertEquals(
                SqlError.VALUE_REFUSED,
                d.diagnostics().classify(new SQLException("String or binary data would be truncated.", "22001", 2628)));
        SqlError denied = d.diagnostics()
                .classify(new SQLException("The UPDATE permission was denied on the object 'jobs'.", "S0005", 229));
        assertEquals(SqlError.OTHER, denied);
        assertEquals(false, denied.refusesValues());
    }

    /** The AWS JDBC wrapper's "transaction resolution unknown" (08007, no error number) is a lost reply. */
    @Test
    void transactionResolutionUnknownIsALostReply() {
        assertEquals(
                SqlError.CONNECTION_LOST,
                d.diagnostics().classify(new SQLException("Transaction resolution unknown", "08007")));
    }
}
