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
}
