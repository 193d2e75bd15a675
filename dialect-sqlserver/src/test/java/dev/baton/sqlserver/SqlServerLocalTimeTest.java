package dev.baton.sqlserver;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.baton.Baton;
import dev.baton.ClaimQueue;
import dev.baton.Condition;
import dev.baton.SchemaMismatchException;
import dev.baton.testkit.compat.Sync;
import java.sql.Types;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Baton's clock on SQL Server is {@code SYSUTCDATETIME()}, while host schemas usually fill time
 * columns with {@code GETDATE()} (the server's local time). {@code verify()} reads each compared column's default
 * ({@code COLUMN_DEF} of the JDBC metadata, which mssql-jdbc reads through {@code sp_columns}) and refuses a local
 * clock, naming the UTC default to use.
 */
class SqlServerLocalTimeTest {
    private final SqlServerSql sql = new SqlServerSql();

    @Test
    void localClockDefaultsAreRecognisedAsTheMetadataGivesThem() {
        assertEquals("SYSUTCDATETIME()", sql.utcDefaultFor("datetime2", "(getdate())"));
        assertEquals("SYSUTCDATETIME()", sql.utcDefaultFor("datetime", "((getdate()))"));
        assertEquals("SYSUTCDATETIME()", sql.utcDefaultFor("datetime2", "(sysdatetime())"));
        assertEquals("SYSUTCDATETIME()", sql.utcDefaultFor("datetime2", "(CURRENT_TIMESTAMP)"));
        assertEquals("SYSUTCDATETIME()", sql.utcDefaultFor("datetime2", "(sysdatetimeoffset())"), "its wall clock");
        assertEquals("SYSDATETIMEOFFSET()", sql.utcDefaultFor("datetimeoffset", "(getdate())"), "stored as +00:00");
        assertNull(sql.utcDefaultFor("datetimeoffset", "(sysdatetimeoffset())"), "an instant");
        assertNull(sql.utcDefaultFor("datetime2", "(sysutcdatetime())"));
        assertNull(sql.utcDefaultFor("datetime", "(getutcdate())"));
        assertNull(sql.utcDefaultFor("datetime2", "('2000-01-01')"));
    }

    @Test
    void verifyRefusesAConditionColumnDefaultingToTheServersLocalClock() {
        SqlRecorder recorder = recorder("(getdate())");
        SchemaMismatchException e = assertThrows(
                SchemaMismatchException.class, () -> queue(recorder).verify());
        assertTrue(
                e.getMessage()
                        .contains("condition column created_at defaults to (getdate()), a local wall clock (the"
                                + " server's or the session's time zone); Baton writes and compares it in UTC"
                                + " (SYSUTCDATETIME()), so rows the default fills would look older or younger by the"
                                + " zone's offset; make its default SYSUTCDATETIME() and have your own writes store"
                                + " UTC"),
                e.getMessage());
        assertEquals(List.of(), e.ddl(), "no DDL: the default constraint's name is the server's");
        assertEquals(
                List.of(SqlServerDiagnostics.UPDATEABILITY_SQL, SqlServerDiagnostics.SESSION_OPTIONS_SQL),
                recorder.take(),
                "refused from the metadata, before the plan is asked for (asked only whether the database takes"
                        + " writes, and the session's options, as the dialect's detection does)");
    }

    @Test
    void verifyAcceptsAUtcDefault() {
        SqlRecorder recorder = recorder("(sysutcdatetime())");
        queue(recorder).verify();
        List<String> asked = recorder.take();
        assertEquals("SET SHOWPLAN_XML ON", asked.get(0), "on to the plan check: " + asked);
    }

    private static ClaimQueue<Sync> queue(SqlRecorder recorder) {
        return Baton.builder(recorder.dataSource())
                .dialect(new SqlServerDialect())
                .build()
                .<Sync>queue("jobs")
                .table("jobs")
                .claim("sync_status", Sync.MACHINE, Sync.PENDING, Sync.PROCESSING)
                .eligibleWhen(Condition.olderThan("created_at", Duration.ofMinutes(10)))
                .deadState(Sync.FAILED)
                .build();
    }

    /** A table {@code jobs} whose {@code created_at} has the default {@code createdAtDefault}. */
    private static SqlRecorder recorder(String createdAtDefault) {
        SqlRecorder recorder = new SqlRecorder(
                0,
                text -> text.startsWith("SELECT TOP")
                        ? List.<Object[]>of(
                                new Object[] {"<ShowPlanXML><RelOp PhysicalOp=\"Index Seek\"/></ShowPlanXML>"})
                        : List.of());
        List<Map<String, Object>> columns = new ArrayList<>();
        columns.add(column("id", Types.BIGINT, "bigint", null));
        columns.add(column("sync_status", Types.INTEGER, "int", null));
        columns.add(column("lease_until", Types.TIMESTAMP, "datetime2", null));
        columns.add(column("claim_token", Types.BIGINT, "bigint", null));
        columns.add(column("attempts", Types.INTEGER, "int", "((0))"));
        columns.add(column("next_attempt_at", Types.TIMESTAMP, "datetime2", null));
        columns.add(column("last_error", Types.NVARCHAR, "nvarchar", null));
        columns.add(column("created_at", Types.TIMESTAMP, "datetime2", createdAtDefault));
        recorder.columns = columns;
        return recorder;
    }

    private static Map<String, Object> column(String name, int jdbcType, String typeName, String columnDefault) {
        Map<String, Object> c = new java.util.HashMap<>();
        c.put("COLUMN_NAME", name);
        c.put("DATA_TYPE", jdbcType);
        c.put("TYPE_NAME", typeName);
        c.put("COLUMN_SIZE", typeName.equals("nvarchar") ? 4000 : 8);
        c.put("NULLABLE", 1);
        c.put("COLUMN_DEF", columnDefault);
        return c;
    }
}
