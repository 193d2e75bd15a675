package dev.baton.sqlserver;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.baton.spi.DatabaseInfo;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * What the SQL Server dialect asks the server when Baton detects it, by exact SQL and by the
 * reading of the answers; no SQL Server runs here.
 */
class SqlServerStartupCheckTest {
    private final SqlServerDialect dialect = new SqlServerDialect();

    @Test
    void azureSqlReportingVersion12IsAcceptedByEngineEdition() {
        DatabaseInfo azure = new DatabaseInfo("Microsoft SQL Server", "12.00.2000", 12, 0);
        assertFalse(dialect.supports(azure), "the version alone says 2014");
        assertTrue(SqlServerDiagnostics.isAzure(azure, 5), "Azure SQL Database");
        assertTrue(SqlServerDiagnostics.isAzure(azure, 8), "Azure SQL Managed Instance");
        assertFalse(SqlServerDiagnostics.isAzure(azure, 3), "SQL Server 2014 Enterprise stays refused");
        assertFalse(SqlServerDiagnostics.isAzure(new DatabaseInfo("Microsoft SQL Server", "11.0", 11, 0), 5));
        assertTrue(dialect.supports(new DatabaseInfo("Microsoft SQL Server", "13.00.1601", 13, 0)));
        assertEquals("SELECT CAST(SERVERPROPERTY('EngineEdition') AS INT)", SqlServerDiagnostics.ENGINE_EDITION_SQL);
        SqlServerSqlTest.parse(SqlServerDiagnostics.ENGINE_EDITION_SQL);
    }

    @Test
    void aNocountSessionIsRefusedWithTheFix() {
        assertEquals("SELECT @@OPTIONS", SqlServerDiagnostics.SESSION_OPTIONS_SQL);
        SqlServerSqlTest.parse(SqlServerDiagnostics.SESSION_OPTIONS_SQL);
        assertEquals(List.of(), SqlServerDiagnostics.sessionProblems(0));
        assertEquals(List.of(), SqlServerDiagnostics.sessionProblems(5496 & ~512), "the usual ANSI options");
        List<String> problems = SqlServerDiagnostics.sessionProblems(5496 | 512);
        assertEquals(1, problems.size());
        assertTrue(problems.get(0).contains("SET NOCOUNT ON") && problems.get(0).contains("SET NOCOUNT OFF"));
    }
}
