package dev.baton.console.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.alibaba.druid.DbType;
import com.alibaba.druid.sql.SQLUtils;
import dev.baton.sqlserver.SqlServerDialect;
import java.lang.reflect.Proxy;
import java.util.List;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;

/**
 * SQL Server cannot run here: the audit table's statements in T-SQL are pinned by exact text and parsed, as
 * dialect-sqlserver's tests pin Baton's own (its DDL is pinned there, in {@code SqlServerOwnTablesSqlTest}).
 */
class AuditTableSqlServerSqlTest {
    @Test
    void theStatementsInTsql() {
        DataSource none = (DataSource)
                Proxy.newProxyInstance(getClass().getClassLoader(), new Class<?>[] {DataSource.class}, (p, m, a) -> {
                    throw new UnsupportedOperationException("rendering only");
                });
        List<String> sql = new AuditTable(none, new SqlServerDialect(), "ops.baton_console_audit").sql();
        String cols = "[at_utc], [principal], [action], [queue_name], [target], [verdict], [force_flag], [evidence],"
                + " [outcome], [result]";
        assertEquals(
                List.of(
                        "INSERT INTO [ops].[baton_console_audit] (" + cols + ") VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                        "SELECT TOP (100) " + cols + " FROM [ops].[baton_console_audit] ORDER BY [id] DESC",
                        "SELECT TOP (100) " + cols + " FROM [ops].[baton_console_audit] WHERE [queue_name] = ? AND"
                                + " [target] = ? ORDER BY [id] DESC"),
                sql);
        for (String s : sql) {
            assertEquals(1, SQLUtils.parseStatements(s, DbType.sqlserver).size(), s);
        }
    }
}
