package dev.baton.mysql;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.baton.spi.SqlError;
import java.sql.SQLException;
import java.sql.SQLNonTransientConnectionException;
import org.junit.jupiter.api.Test;

/** Error classification by vendor code, with the messages of MySQL 8 and MariaDB. */
class MySqlClassifyTest {
    private final MySqlDialect d = new MySqlDialect();

    @Test
    void classifiesByVendorCodeNotSqlState() {
        assertEquals(
                SqlError.uniqueViolation("uq_txn"),
                d.diagnostics()
                        .classify(new SQLException("Duplicate entry 'tx-1' for key 'orders.uq_txn'", "23000", 1062)),
                "MySQL 8 names the key table.key");
        assertEquals(
                SqlError.uniqueViolation("uq_txn"),
                d.diagnostics().classify(new SQLException("Duplicate entry 'tx-1' for key 'uq_txn'", "23000", 1062)),
                "MariaDB names the key alone");
        assertEquals(SqlError.CONFLICT, d.diagnostics().classify(new SQLException("Deadlock found", "40001", 1213)));
        // Connector/J reports the lock-wait timeout as 40001 though InnoDB rolled back only the statement
        assertEquals(
                SqlError.TRANSIENT,
                d.diagnostics().classify(new SQLException("Lock wait timeout exceeded", "40001", 1205)));
        assertEquals(
                SqlError.TRANSIENT,
                d.diagnostics().classify(new SQLException("Record has changed since last read", "HY000", 1020)));
        assertEquals(
                SqlError.CONNECTION_LOST,
                d.diagnostics().classify(new SQLException("Connection was killed", "70100", 1927)));
        assertEquals(
                SqlError.CONNECTION_LOST,
                d.diagnostics().classify(new SQLNonTransientConnectionException("Socket error")));
        assertEquals(
                SqlError.VALUE_REFUSED, d.diagnostics().classify(new SQLException("Data too long", "22001", 1406)));
        // a replica, or a primary fenced by a failover: evict the connection and retry, never the row's fault
        assertEquals(
                SqlError.READ_ONLY,
                d.diagnostics()
                        .classify(new SQLException(
                                "The MariaDB server is running with the --read-only option so it cannot execute this"
                                        + " statement",
                                "HY000",
                                1290)));
        assertEquals(
                SqlError.READ_ONLY,
                d.diagnostics()
                        .classify(new SQLException(
                                "The MySQL server is running with the --super-read-only option so it cannot execute"
                                        + " this statement",
                                "HY000",
                                1290)));
        assertEquals(
                SqlError.OTHER,
                d.diagnostics()
                        .classify(new SQLException(
                                "The MariaDB server is running with the --skip-grant-tables option so it cannot"
                                        + " execute this statement",
                                "HY000",
                                1290)),
                "1290 for another option is not a failover");
        assertEquals(
                SqlError.READ_ONLY,
                d.diagnostics().classify(new SQLException("Running in read-only mode", "HY000", 1836)));
        for (int code : new int[] {2006, 2013}) {
            assertEquals(
                    SqlError.CONNECTION_LOST,
                    d.diagnostics().classify(new SQLException("Server has gone away", "08S01", code)),
                    "error " + code);
        }
        assertEquals(
                SqlError.undefinedColumn("paid_at"),
                d.diagnostics().classify(new SQLException("Unknown column 'paid_at' in 'field list'", "42S22", 1054)));
        assertEquals(
                SqlError.undefinedColumn("guid"),
                d.diagnostics()
                        .classify(new SQLException(
                                "Unknown column 'baton_prior.guid' in 'where clause'", "42S22", 1054)));
    }

    @Test
    void statementTimeoutsAreTransientAndOnlyTheValuesOwnErrorsRefuseValues() {
        assertEquals(
                SqlError.TRANSIENT,
                d.diagnostics()
                        .classify(new SQLException(
                                "Query execution was interrupted (max_statement_time exceeded)", "70100", 1969)));
        assertEquals(
                SqlError.TRANSIENT,
                d.diagnostics()
                        .classify(new SQLException(
                                "Query execution was interrupted, maximum statement execution time exceeded",
                                "HY000",
                                3024)));
        assertEquals(
                SqlError.TRANSIENT,
                d.diagnostics().classify(new java.sql.SQLTimeoutException("timeout", "70100", 1969)));
        assertEquals(
                SqlError.VALUE_REFUSED,
                d.diagnostics().classify(new SQLException("Incorrect string value", "HY000", 1366)));
        assertEquals(
                SqlError.VALUE_REFUSED,
                d.diagnostics().classify(new SQLException("Check constraint 'c' is violated.", "HY000", 3819)));
        assertEquals(
                SqlError.VALUE_REFUSED,
                d.diagnostics().classify(new SQLException("CONSTRAINT `c` failed", "23000", 4025)));
        assertEquals(
                SqlError.VALUE_REFUSED,
                d.diagnostics().classify(new SQLException("Column 'x' cannot be null", "23000", 1048)));
        SqlError denied = d.diagnostics().classify(new SQLException("UPDATE command denied", "42000", 1142));
        assertEquals(SqlError.OTHER, denied);
        assertEquals(false, denied.refusesValues());
    }

    /**
     * The AWS JDBC wrapper's "transaction resolution unknown" after an Aurora writer failover (08007, no vendor code)
     * is a lost reply: read back, in doubt where nothing tells. It does not run here: the text is the wrapper's.
     */
    @Test
    void transactionResolutionUnknownIsALostReply() {
        assertEquals(
                SqlError.CONNECTION_LOST,
                d.diagnostics().classify(new SQLException("Transaction resolution unknown", "08007")));
        assertEquals(
                SqlError.CONNECTION_LOST,
                d.diagnostics().classify(new SQLException("The active SQL connection has changed", "08S02")));
    }

    /** TiDB, Vitess and PlanetScale, which answer as MySQL, are named and refused by their version strings. */
    @Test
    void theEngineCheckRefusesTiDbAndVitessByTheirVersionAndPassesMySqlAndMariaDb() {
        assertTrue(MySqlDiagnostics.engineOf("8.0.11-TiDB-v8.5.6").orElseThrow().contains("TiDB"));
        assertTrue(MySqlDiagnostics.engineOf("8.0.30-Vitess").orElseThrow().contains("Vitess"));
        assertTrue(MySqlDiagnostics.engineOf("8.0.23-PlanetScale").orElseThrow().contains("PlanetScale"));
        for (String ours : new String[] {"8.0.40", "8.4.3", "10.11.19-MariaDB-0+deb12u1", "11.4.5-MariaDB-log"}) {
            assertTrue(MySqlDiagnostics.engineOf(ours).isEmpty(), ours);
        }
    }
}
