package dev.baton.sqlserver;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.baton.spi.BatchUpdateSpec;
import dev.baton.spi.SqlFragment;
import java.sql.Connection;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * SQL Server's claim plan check. The estimated plan is asked for by exact SQL ({@code SET
 * SHOWPLAN_XML ON} around the pick) and read for Sort and scan operators; a per-key ordered claim is refused without
 * READ_COMMITTED_SNAPSHOT. The plans below are showplan XML in the shape SQL Server returns (RelOp elements with a
 * PhysicalOp attribute); a server reads real ones in the Docker CI.
 */
class SqlServerClaimPlanTest {
    private static final BatchUpdateSpec OUTBOX = BatchUpdateSpec.builder("[baton_outbox]", "[id]")
            .where(SqlFragment.of("[status] = 0"))
            .pickGuard(SqlFragment.of("NOT EXISTS (SELECT 1 FROM [baton_outbox] baton_prior WHERE"
                    + " baton_prior.[msg_key] = [baton_outbox].[msg_key] AND baton_prior.[id] < [baton_outbox].[id]"
                    + " AND baton_prior.[status] IN (0, 1))"))
            .set(SqlFragment.of("[status] = 1"))
            .limit(10)
            .orderBy(List.of("[status]", "[id]"))
            .returning(List.of("[id]"))
            .build();

    private static final String SEEK = "<ShowPlanXML><BatchSequence><Batch><Statements><StmtSimple><QueryPlan>"
            + "<RelOp PhysicalOp=\"Top\" LogicalOp=\"Top\"><RelOp PhysicalOp=\"Nested Loops\" LogicalOp=\"Left Anti"
            + " Semi Join\"><RelOp PhysicalOp=\"Index Seek\" LogicalOp=\"Index Seek\"/><RelOp PhysicalOp=\"Index"
            + " Seek\" LogicalOp=\"Index Seek\"/></RelOp></RelOp></QueryPlan></StmtSimple></Statements></Batch>"
            + "</BatchSequence></ShowPlanXML>";
    private static final String SORTED = SEEK.replace(
            "<RelOp PhysicalOp=\"Top\" LogicalOp=\"Top\">",
            "<RelOp PhysicalOp=\"Top\" LogicalOp=\"Top\"><RelOp PhysicalOp=\"Sort\" LogicalOp=\"TopN Sort\">");
    private static final String SCANNED = SEEK.replaceFirst(
            "Index Seek\" LogicalOp=\"Index Seek", "Clustered Index" + " Scan\" LogicalOp=\"Clustered Index Scan");

    @Test
    void thePlanIsAskedForThePickUnderTheClaimsHints() throws Exception {
        SqlRecorder recorder = new SqlRecorder(
                0,
                sql -> sql.startsWith("SELECT TOP")
                        ? List.<Object[]>of(new Object[] {SEEK})
                        : List.<Object[]>of(new Object[] {true}));
        try (Connection c = recorder.dataSource().getConnection()) {
            assertEquals(Optional.empty(), new SqlServerDiagnostics().claimPlanProblem(c, OUTBOX, new Object[0]));
        }
        String pick =
                "SELECT TOP (10) [id] FROM [baton_outbox] WITH (UPDLOCK, READPAST, ROWLOCK, READCOMMITTEDLOCK) WHERE [status] = 0"
                        + " AND NOT EXISTS (SELECT 1 FROM [baton_outbox] baton_prior WHERE baton_prior.[msg_key] ="
                        + " [baton_outbox].[msg_key] AND baton_prior.[id] < [baton_outbox].[id] AND baton_prior.[status] IN"
                        + " (0, 1)) ORDER BY [status], [id]";
        assertEquals(
                List.of(
                        "SELECT is_read_committed_snapshot_on FROM sys.databases WHERE database_id = DB_ID()",
                        "SET SHOWPLAN_XML ON",
                        pick,
                        "SET SHOWPLAN_XML OFF"),
                recorder.take());
        SqlServerSqlTest.parse(pick);
    }

    @Test
    void aPerKeyOrderedClaimWithoutReadCommittedSnapshotIsRefused() throws Exception {
        SqlRecorder recorder = new SqlRecorder(0, sql -> List.<Object[]>of(new Object[] {false}));
        try (Connection c = recorder.dataSource().getConnection()) {
            Optional<String> problem = new SqlServerDiagnostics().claimPlanProblem(c, OUTBOX, new Object[0]);
            assertTrue(problem.orElseThrow().contains("READ_COMMITTED_SNAPSHOT ON"), problem.get());
        }
        assertEquals(1, recorder.take().size(), "no plan asked once RCSI is off");
    }

    /**
     * A table with enabled triggers is served (the claim takes the OUTPUT … INTO form, see
     * SqlServerOutputIntoTest), not refused: the check does not ask about triggers at all.
     */
    @Test
    void aTableWithEnabledTriggersIsNotRefused() throws Exception {
        SqlRecorder recorder = new SqlRecorder(
                0,
                sql -> sql.startsWith("SELECT TOP")
                        ? List.<Object[]>of(new Object[] {SEEK})
                        : List.<Object[]>of(sql.contains("sys.triggers") ? new Object[] {2} : new Object[] {true}));
        try (Connection c = recorder.dataSource().getConnection()) {
            assertEquals(Optional.empty(), new SqlServerDiagnostics().claimPlanProblem(c, OUTBOX, new Object[0]));
        }
        assertTrue(recorder.take().stream().noneMatch(sql -> sql.contains("sys.triggers")));
    }

    @Test
    void sortsAndScansAreProblemsSeeksAreNot() {
        assertEquals(Optional.empty(), SqlServerDiagnostics.planProblem(SEEK));
        assertTrue(SqlServerDiagnostics.planProblem(SORTED).orElseThrow().contains("Sort"));
        assertTrue(SqlServerDiagnostics.planProblem(SCANNED).orElseThrow().contains("Clustered Index Scan"));
        assertTrue(SqlServerDiagnostics.planProblem(SEEK.replace("Index Seek", "Table Scan"))
                .orElseThrow()
                .contains("Table Scan"));
    }
}
