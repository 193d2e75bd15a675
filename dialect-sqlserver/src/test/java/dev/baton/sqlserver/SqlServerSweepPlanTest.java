package dev.baton.sqlserver;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.baton.Baton;
import dev.baton.ClaimQueue;
import dev.baton.SchemaMismatchException;
import dev.baton.testkit.compat.Sync;
import java.sql.Types;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * A queue's {@code verify()} on SQL Server, which cannot run here, asks the plan of the expiry sweep after the claim's:
 * the sweep takes an update lock on every processing row it reads, so one that scans escalates to a table lock. The
 * plans are showplan XML in the shape SQL Server returns (recorded metadata, no server); a server reads real ones in
 * the Docker CI.
 */
class SqlServerSweepPlanTest {
    private static final String SEEK =
            "<ShowPlanXML><RelOp PhysicalOp=\"Top\"><RelOp PhysicalOp=\"Index Seek\"/>" + "</RelOp></ShowPlanXML>";
    private static final String SCAN = SEEK.replace("Index Seek", "Clustered Index Scan");
    private static final String SWEEP_PICK = "SELECT TOP (500) [id] FROM [jobs] WITH (UPDLOCK, READPAST, ROWLOCK,"
            + " READCOMMITTEDLOCK) WHERE [sync_status] = 1 AND [lease_until] < SYSUTCDATETIME() AND [attempts] < ?";

    @Test
    void aSweepThatScansIsRefusedWithTheClaimIndex() {
        SqlRecorder recorder = recorder(SCAN);
        ClaimQueue<Sync> jobs = queue(recorder);
        SchemaMismatchException e = assertThrows(SchemaMismatchException.class, jobs::verify);
        assertTrue(e.getMessage().contains("queue 'jobs': its expiry sweep: no index serves it"), e.getMessage());
        assertTrue(e.getMessage().contains("Clustered Index Scan"), e.getMessage());
        assertEquals(List.of(jobs.suggestedIndex()), e.ddl());
        assertTrue(recorder.take().contains(SWEEP_PICK), "the sweep's pick under its hints");
        SqlServerSqlTest.parse(SWEEP_PICK);
    }

    @Test
    void aSweepTheIndexServesPasses() {
        SqlRecorder recorder = recorder(SEEK);
        queue(recorder).verify();
        List<String> asked = recorder.take();
        assertEquals(
                2, asked.stream().filter("SET SHOWPLAN_XML ON"::equals).count(), "the claim, then the sweep: " + asked);
    }

    private static ClaimQueue<Sync> queue(SqlRecorder recorder) {
        return Baton.builder(recorder.dataSource())
                .dialect(new SqlServerDialect())
                .build()
                .<Sync>queue("jobs")
                .table("jobs")
                .claim("sync_status", Sync.MACHINE, Sync.PENDING, Sync.PROCESSING)
                .deadState(Sync.FAILED)
                .build();
    }

    /** The claim's pick plans as a seek; the sweep's as {@code sweepPlan}. */
    private static SqlRecorder recorder(String sweepPlan) {
        SqlRecorder recorder = new SqlRecorder(
                0,
                text -> text.startsWith("SELECT TOP")
                        ? List.<Object[]>of(new Object[] {text.equals(SWEEP_PICK) ? sweepPlan : SEEK})
                        : List.of());
        recorder.columns = List.of(
                column("id", Types.BIGINT, "bigint", null),
                column("sync_status", Types.INTEGER, "int", null),
                column("lease_until", Types.TIMESTAMP, "datetime2", null),
                column("claim_token", Types.BIGINT, "bigint", null),
                column("attempts", Types.INTEGER, "int", "((0))"),
                column("next_attempt_at", Types.TIMESTAMP, "datetime2", null),
                column("last_error", Types.NVARCHAR, "nvarchar", null));
        return recorder;
    }

    private static Map<String, Object> column(String name, int jdbcType, String typeName, String columnDefault) {
        Map<String, Object> c = new HashMap<>();
        c.put("COLUMN_NAME", name);
        c.put("DATA_TYPE", jdbcType);
        c.put("TYPE_NAME", typeName);
        c.put("COLUMN_SIZE", typeName.equals("nvarchar") ? 4000 : 8);
        c.put("NULLABLE", 1);
        c.put("COLUMN_DEF", columnDefault);
        return c;
    }
}
