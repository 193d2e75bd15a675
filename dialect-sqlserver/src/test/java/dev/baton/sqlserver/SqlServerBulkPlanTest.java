package dev.baton.sqlserver;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.baton.Baton;
import dev.baton.BulkTransition;
import dev.baton.Condition;
import dev.baton.SchemaMismatchException;
import dev.baton.testkit.compat.Payment;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A bulk transition's plan check on SQL Server, which cannot run here: {@code verify()} asks the estimated plan of a
 * batch's read under the batch's hints and refuses one that scans (each batch takes an update lock on every row it
 * reads, and a scan escalates them to a table lock). The plans are showplan XML in the shape SQL Server returns; a
 * server reads real ones in the Docker CI.
 */
class SqlServerBulkPlanTest {
    private static final String SEEK =
            "<ShowPlanXML><RelOp PhysicalOp=\"Top\"><RelOp PhysicalOp=\"Index Seek\"/>" + "</RelOp></ShowPlanXML>";
    private static final String SCAN = SEEK.replace("Index Seek", "Clustered Index Scan");

    @Test
    void aBulkTransitionWhoseGuardsNoIndexServesIsRefused() {
        SqlRecorder recorder = recorder(SCAN);
        BulkTransition<Payment> expire = expire(recorder);
        SchemaMismatchException e = assertThrows(SchemaMismatchException.class, expire::verify);
        assertTrue(e.getMessage().contains("Clustered Index Scan"), e.getMessage());
        assertTrue(e.getMessage().contains("table lock"), e.getMessage());
        String pick = "SELECT TOP (500) [id] FROM [orders] WITH (UPDLOCK, READPAST, ROWLOCK, READCOMMITTEDLOCK)"
                + " WHERE [payment_status] = 0 AND [payment_transaction_id] IS NULL";
        assertEquals(List.of("SET SHOWPLAN_XML ON", pick, "SET SHOWPLAN_XML OFF"), recorder.take());
        SqlServerSqlTest.parse(pick);
        assertEquals(List.of(), recorder.sql, "nothing ran");
    }

    @Test
    void aBulkTransitionAnIndexServesPasses() {
        SqlRecorder recorder = recorder(SEEK);
        expire(recorder).verify();
        assertEquals(3, recorder.take().size(), "only the plan was asked");
    }

    private static BulkTransition<Payment> expire(SqlRecorder recorder) {
        return Baton.builder(recorder.dataSource())
                .dialect(new SqlServerDialect())
                .build()
                .table("orders")
                .state("payment_status", Payment.MACHINE)
                .bulk(Payment.PENDING, Payment.EXPIRED)
                .where(Condition.isNull("payment_transaction_id"));
    }

    private static SqlRecorder recorder(String plan) {
        return new SqlRecorder(
                0, sql -> sql.startsWith("SELECT TOP") ? List.<Object[]>of(new Object[] {plan}) : List.of());
    }
}
