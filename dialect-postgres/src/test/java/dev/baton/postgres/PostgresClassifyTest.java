package dev.baton.postgres;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.baton.spi.SqlError;
import java.sql.SQLException;
import org.junit.jupiter.api.Test;

/** Error classification by SQLState, with pgjdbc's messages; the compatibility suite proves it on a live server. */
class PostgresClassifyTest {
    private final PostgresDialect d = new PostgresDialect();

    @Test
    void classifiesByStateAndNamesTheConstraint() {
        assertEquals(
                SqlError.uniqueViolation("orders_txn_key"),
                d.diagnostics()
                        .classify(new SQLException(
                                "ERROR: duplicate key value violates unique constraint \"orders_txn_key\"", "23505")));
        assertEquals(SqlError.TRANSIENT, d.diagnostics().classify(new SQLException("deadlock detected", "40P01")));
        assertEquals(
                SqlError.TRANSIENT, d.diagnostics().classify(new SQLException("could not serialize access", "40001")));
        assertEquals(SqlError.TRANSIENT, d.diagnostics().classify(new SQLException("lock timeout", "55P03")));
        assertEquals(
                SqlError.CONNECTION_LOST,
                d.diagnostics().classify(new SQLException("terminating connection", "57P01")));
        assertEquals(SqlError.CONNECTION_LOST, d.diagnostics().classify(new SQLException("I/O error", "08006")));
        for (String state : new String[] {"57P01", "57P02", "57P03", "08000", "08003", "08006", "08001"}) {
            assertTrue(d.diagnostics().classify(new SQLException("x", state)).failover(), state);
        }
        // a hot standby or a demoted (or fenced) primary
        assertEquals(
                SqlError.READ_ONLY,
                d.diagnostics()
                        .classify(
                                new SQLException("ERROR: cannot execute UPDATE in a read-only transaction", "25006")));
        assertTrue(SqlError.READ_ONLY.retryable() && SqlError.READ_ONLY.failover());
        assertEquals(SqlError.OTHER, d.diagnostics().classify(new SQLException("syntax error", "42601")));
        assertEquals(
                SqlError.undefinedColumn("paid_at"),
                d.diagnostics()
                        .classify(new SQLException(
                                "ERROR: column \"paid_at\" of relation \"orders\" does not exist", "42703")));
        assertEquals(
                SqlError.undefinedColumn("guid"),
                d.diagnostics()
                        .classify(new SQLException(
                                "ERROR: column baton_prior.guid does not exist\n  Position: 9", "42703")));
        SQLException aborted = new SQLException("current transaction is aborted", "25P02");
        aborted.initCause(new SQLException("duplicate key value violates unique constraint \"x\"", "23505"));
        assertEquals(
                SqlError.OTHER,
                d.diagnostics().classify(aborted),
                "the cause of an aborted transaction is not this statement's");
    }

    @Test
    void aStatementTimeoutIsTransientAndOnlyDataAndIntegrityErrorsRefuseValues() {
        SqlError timeout = d.diagnostics()
                .classify(new SQLException("ERROR: canceling statement due to statement timeout", "57014"));
        assertEquals(SqlError.TRANSIENT, timeout);
        assertEquals(false, timeout.refusesValues());
        for (String state : new String[] {"22001", "22003", "22P02", "23502", "23503", "23514"}) {
            assertEquals(SqlError.VALUE_REFUSED, d.diagnostics().classify(new SQLException("refused", state)), state);
        }
        assertEquals(
                true, d.diagnostics().classify(new SQLException("dup", "23505")).refusesValues());
        for (String state : new String[] {"53300", "42501", "57P04", "XX000"}) {
            SqlError e = d.diagnostics().classify(new SQLException("not the row's fault", state));
            assertEquals(SqlError.OTHER, e, state);
            assertEquals(false, e.refusesValues(), state);
        }
    }

    /**
     * The AWS JDBC wrapper's "transaction resolution unknown" after an Aurora writer failover (08007) is a lost reply:
     * read back, in doubt where nothing tells. A standby still finishing its promotion (Patroni's leader before its
     * promotion returned) refuses writes as a read-only server does. Neither runs here: the texts are the wrapper's
     * and PostgreSQL's.
     */
    @Test
    void transactionResolutionUnknownIsALostReplyAndAPromotingStandbyIsReadOnly() {
        assertEquals(
                SqlError.CONNECTION_LOST,
                d.diagnostics().classify(new SQLException("Transaction resolution unknown", "08007")));
        assertEquals(
                SqlError.CONNECTION_LOST,
                d.diagnostics().classify(new SQLException("The active SQL connection has changed", "08S02")));
        assertEquals(
                SqlError.READ_ONLY,
                d.diagnostics()
                        .classify(new SQLException(
                                "ERROR: cannot set transaction read-write mode during recovery", "0A000")));
        assertEquals(
                SqlError.READ_ONLY,
                d.diagnostics().classify(new SQLException("ERROR: recovery is in progress", "55000")));
        assertEquals(
                SqlError.OTHER,
                d.diagnostics().classify(new SQLException("ERROR: unsupported feature", "0A000")),
                "only recovery makes 0A000 a read-only server");
    }

    /** CockroachDB, which answers as PostgreSQL, is named and refused by its {@code version()}; PostgreSQL is not. */
    @Test
    void theEngineCheckRefusesCockroachDbByItsVersionAndPassesPostgres() {
        String crdb =
                "CockroachDB CCL v24.1.0 (x86_64-pc-linux-gnu, built 2024/05/15 21:28:29, go1.22.2 X:nocoverageredesign)";
        assertTrue(PostgresDiagnostics.engineOf(crdb).orElseThrow().contains("CockroachDB"));
        assertTrue(PostgresDiagnostics.engineOf(
                        "PostgreSQL 15.20 (Debian 15.20-0+deb12u1) on x86_64-pc-linux-gnu, compiled by gcc")
                .isEmpty());
        assertTrue(PostgresDiagnostics.engineOf(null).isEmpty());
    }
}
