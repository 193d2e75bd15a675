package dev.baton.sqlserver;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.alibaba.druid.DbType;
import com.alibaba.druid.sql.SQLUtils;
import dev.baton.Baton;
import dev.baton.IdempotencyKeys;
import dev.baton.Inbox;
import java.lang.reflect.Proxy;
import java.time.Duration;
import java.util.List;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;

/**
 * SQL Server cannot run here: the SQL of Baton's own tables (the DDL as read from the shipped files and renamed, and
 * the statements) is pinned by exact text and parsed as T-SQL. The shared compatibility suites run it for real wherever
 * {@code BATON_TEST_SQLSERVER_URL} is set.
 */
class SqlServerOwnTablesSqlTest {
    private static final String KEY = "NVARCHAR(255) COLLATE Latin1_General_100_BIN2";

    /** Rendering only: with the dialect given, Baton never connects, and SQL Server needs no storage check. */
    private final Baton baton = Baton.builder((DataSource) Proxy.newProxyInstance(
                    getClass().getClassLoader(), new Class<?>[] {DataSource.class}, (proxy, method, args) -> {
                        throw new UnsupportedOperationException("rendering only: " + method.getName());
                    }))
            .dialect(new SqlServerDialect())
            .build();

    @Test
    void idempotencyKeysDdl() {
        List<String> ddl = baton.ownTables().idempotencyKeysDdl(IdempotencyKeys.DEFAULT_TABLE);
        assertEquals(
                List.of(
                        "CREATE TABLE [baton_idempotency_keys] (\n"
                                + "    [scope] " + KEY + " NOT NULL,\n"
                                + "    [idempotency_key] " + KEY + " NOT NULL,\n"
                                + "    [fingerprint] " + KEY + " NOT NULL,\n"
                                + "    [state] VARCHAR(16) NOT NULL CHECK ([state] IN ('in_progress', 'completed')),\n"
                                + "    [token] BIGINT NOT NULL,\n"
                                + "    [attempts] INT NOT NULL,\n"
                                + "    [locked_until] DATETIME2(6) NULL,\n"
                                + "    [response] VARBINARY(MAX) NULL,\n"
                                + "    [created_at] DATETIME2(6) NOT NULL,\n"
                                + "    [updated_at] DATETIME2(6) NOT NULL,\n"
                                + "    CONSTRAINT [baton_idempotency_keys_pk] PRIMARY KEY NONCLUSTERED ([scope],"
                                + " [idempotency_key])\n"
                                + ")",
                        // clustered on the write-once column: every begin-again and completion sets updated_at
                        "CREATE CLUSTERED INDEX [baton_idempotency_keys_created_at] ON [baton_idempotency_keys]"
                                + " ([created_at])",
                        "CREATE INDEX [baton_idempotency_keys_updated_at] ON [baton_idempotency_keys] ([updated_at])"),
                ddl);
        ddl.forEach(SqlServerOwnTablesSqlTest::parse);
        assertEquals(
                "CREATE CLUSTERED INDEX [keys_created_at] ON [app].[keys] ([created_at])",
                baton.ownTables().idempotencyKeysDdl("app.keys").get(1));
    }

    @Test
    void consoleAuditDdl() {
        String bin = "COLLATE Latin1_General_100_BIN2";
        List<String> ddl = baton.ownTables().consoleAuditDdl("baton_console_audit");
        assertEquals(
                List.of(
                        "CREATE TABLE [baton_console_audit] (\n"
                                + "    [id] BIGINT IDENTITY(1, 1) NOT NULL,\n"
                                + "    [at_utc] DATETIME2(6) NOT NULL,\n"
                                + "    [principal] NVARCHAR(200) NOT NULL,\n"
                                + "    [action] NVARCHAR(40) NOT NULL,\n"
                                + "    [queue_name] NVARCHAR(200) " + bin + " NOT NULL,\n"
                                + "    [target] NVARCHAR(400) " + bin + " NULL,\n"
                                + "    [verdict] NVARCHAR(200) NULL,\n"
                                + "    [force_flag] SMALLINT NOT NULL,\n"
                                + "    [evidence] NVARCHAR(MAX) NULL,\n"
                                + "    [outcome] NVARCHAR(20) NOT NULL,\n"
                                + "    [result] NVARCHAR(1000) NOT NULL,\n"
                                + "    CONSTRAINT [baton_console_audit_pk] PRIMARY KEY ([id])\n"
                                + ")",
                        "CREATE INDEX [baton_console_audit_row] ON [baton_console_audit] ([queue_name], [target],"
                                + " [id])"),
                ddl);
        ddl.forEach(SqlServerOwnTablesSqlTest::parse);
        assertEquals(
                "CREATE INDEX [trail_row] ON [ops].[trail] ([queue_name], [target], [id])",
                baton.ownTables().consoleAuditDdl("ops.trail").get(1));
    }

    @Test
    void inboxDdl() {
        List<String> ddl = baton.ownTables().inboxDdl(Inbox.DEFAULT_TABLE);
        assertEquals(
                List.of(
                        "CREATE TABLE [baton_inbox] (\n"
                                + "    [source] " + KEY + " NOT NULL,\n"
                                + "    [message_id] " + KEY + " NOT NULL,\n"
                                + "    [receipt] BIGINT NOT NULL,\n"
                                + "    [received_at] DATETIME2(6) NOT NULL,\n"
                                + "    CONSTRAINT [baton_inbox_pk] PRIMARY KEY NONCLUSTERED ([source], [message_id])\n"
                                + ")",
                        "CREATE CLUSTERED INDEX [baton_inbox_received_at] ON [baton_inbox] ([received_at])"),
                ddl);
        ddl.forEach(SqlServerOwnTablesSqlTest::parse);
    }

    @Test
    void anotherOutboxNameRenamesTheTableAndItsIndexes() {
        List<String> ddl = baton.ownTables().outboxDdl("app.events");
        assertTrue(
                ddl.get(0)
                        .startsWith(
                                "CREATE TABLE [app].[events] (\n    [id] BIGINT IDENTITY(1,1) NOT NULL PRIMARY KEY,"),
                ddl.get(0));
        assertEquals(
                List.of(
                        "CREATE UNIQUE INDEX [events_dedup] ON [app].[events] ([dedup_key]) WHERE [dedup_key] IS NOT"
                                + " NULL",
                        "CREATE INDEX [events_claim] ON [app].[events] ([status], [id])",
                        "CREATE INDEX [events_key] ON [app].[events] ([msg_key], [status], [id])",
                        // V7: the receipt Outbox.enqueue reads back after a lost reply
                        "ALTER TABLE [app].[events] ADD [receipt] BIGINT NULL",
                        "CREATE UNIQUE INDEX [events_receipt] ON [app].[events] ([receipt]) WHERE [receipt] IS NOT NULL"),
                ddl.subList(1, ddl.size()));
        // Druid 1.2.24 does not know filtered indexes (CREATE INDEX … WHERE); the exact text pins those
        parse(ddl.get(0));
        ddl.subList(2, ddl.size() - 1).forEach(SqlServerOwnTablesSqlTest::parse);
    }

    @Test
    void outboxStatementsWriteAndReadTheReceipt() {
        List<String> sql = baton.outbox("baton_outbox").sql();
        String cols = "[topic], [msg_key], [payload], [headers], [dedup_key], [status], [receipt], [attempts],"
                + " [created_at]";
        assertEquals(
                List.of(
                        "INSERT INTO [baton_outbox] (" + cols + ") VALUES (?, ?, ?, ?, ?, ?, ?, 0, SYSUTCDATETIME())",
                        "INSERT INTO [baton_outbox] (" + cols + ") SELECT " + cols + " FROM (VALUES (?, ?, ?, ?, ?, ?,"
                                + " ?, 0, SYSUTCDATETIME())) AS baton_new (" + cols
                                + ") WHERE NOT EXISTS (SELECT 1 FROM"
                                + " [baton_outbox] AS baton_old WITH (UPDLOCK, HOLDLOCK, INDEX([baton_outbox_dedup]))"
                                + " WHERE baton_old.[dedup_key] ="
                                + " baton_new.[dedup_key] AND baton_old.[dedup_key] IS NOT NULL)",
                        "SELECT [id] FROM [baton_outbox] WHERE [receipt] = ?"),
                sql);
        sql.forEach(SqlServerOwnTablesSqlTest::parse);
    }

    @Test
    void idempotencyKeyStatements() {
        String cols = "[scope], [idempotency_key], [fingerprint], [state], [token], [attempts], [locked_until],"
                + " [created_at], [updated_at]";
        List<String> sql = baton.idempotencyKeys(IdempotencyKeys.DEFAULT_TABLE).sql();
        assertEquals(
                List.of(
                        "INSERT INTO [baton_idempotency_keys] (" + cols + ") SELECT " + cols + " FROM (VALUES (?, ?, ?,"
                                + " 'in_progress', ?, 1, DATEADD(millisecond, 300000, SYSUTCDATETIME()),"
                                + " SYSUTCDATETIME(), SYSUTCDATETIME())) AS baton_new (" + cols + ") WHERE NOT EXISTS"
                                + " (SELECT 1 FROM [baton_idempotency_keys] AS baton_old WITH (UPDLOCK, HOLDLOCK,"
                                + " INDEX([baton_idempotency_keys_pk]))"
                                + " WHERE baton_old.[scope] = baton_new.[scope] AND baton_old.[idempotency_key] ="
                                + " baton_new.[idempotency_key])",
                        "UPDATE [baton_idempotency_keys] SET [token] = ?, [attempts] = [attempts] + 1, [locked_until] ="
                                + " DATEADD(millisecond, 300000, SYSUTCDATETIME()), [updated_at] = SYSUTCDATETIME()"
                                + " WHERE [scope] = ? AND [idempotency_key] = ? AND [fingerprint] = ? AND [state] ="
                                + " 'in_progress' AND [locked_until] < SYSUTCDATETIME()",
                        "SELECT [fingerprint], [state], [token], [attempts], [response] FROM [baton_idempotency_keys]"
                                + " WITH (UPDLOCK, ROWLOCK) WHERE [scope] = ? AND [idempotency_key] = ?",
                        "UPDATE [baton_idempotency_keys] SET [state] = 'completed', [response] = ?, [locked_until] ="
                                + " NULL, [updated_at] = SYSUTCDATETIME() WHERE [scope] = ? AND [idempotency_key] = ?"
                                + " AND [token] = ? AND [state] = 'in_progress'",
                        "DELETE FROM [baton_idempotency_keys] WHERE [scope] = ? AND [idempotency_key] = ? AND [token] ="
                                + " ? AND [state] = 'in_progress'",
                        "DELETE TOP (500) FROM [baton_idempotency_keys] WITH (ROWLOCK, READPAST, READCOMMITTEDLOCK) WHERE [updated_at] <"
                                + " DATEADD(millisecond, -86400000, SYSUTCDATETIME()) AND ([state] = 'completed' OR"
                                + " [locked_until] < SYSUTCDATETIME())"),
                sql);
        sql.forEach(SqlServerOwnTablesSqlTest::parse);
        // a retention beyond DATEADD's int range of milliseconds is rendered in seconds
        String longRetention = baton.idempotencyKeys(
                        "k", IdempotencyKeys.Options.defaults().retention(Duration.ofDays(3650)))
                .sql()
                .get(5);
        assertEquals(
                "DELETE TOP (500) FROM [k] WITH (ROWLOCK, READPAST, READCOMMITTEDLOCK) WHERE [updated_at] < DATEADD(second, -315360000,"
                        + " SYSUTCDATETIME()) AND ([state] = 'completed' OR [locked_until] < SYSUTCDATETIME())",
                longRetention);
        parse(longRetention);
    }

    @Test
    void inboxStatements() {
        List<String> sql = baton.inbox(Inbox.DEFAULT_TABLE).sql(Duration.ofDays(7));
        String cols = "[source], [message_id], [receipt], [received_at]";
        assertEquals(
                List.of(
                        "INSERT INTO [baton_inbox] (" + cols + ") SELECT " + cols + " FROM (VALUES (?, ?, ?,"
                                + " SYSUTCDATETIME())) AS baton_new (" + cols + ") WHERE NOT EXISTS (SELECT 1 FROM"
                                + " [baton_inbox] AS baton_old WITH (UPDLOCK, HOLDLOCK, INDEX([baton_inbox_pk])) WHERE"
                                + " baton_old.[source] ="
                                + " baton_new.[source] AND baton_old.[message_id] = baton_new.[message_id])",
                        "SELECT [receipt] FROM [baton_inbox] WHERE [source] = ? AND [message_id] = ?",
                        "DELETE TOP (500) FROM [baton_inbox] WITH (ROWLOCK, READPAST, READCOMMITTEDLOCK) WHERE [received_at] <"
                                + " DATEADD(millisecond, -604800000, SYSUTCDATETIME())"),
                sql);
        sql.forEach(SqlServerOwnTablesSqlTest::parse);
    }

    /**
     * Parses T-SQL with Druid's SQL Server grammar. Druid 1.2.24 knows neither {@code DELETE TOP (n) FROM t WITH
     * (hints)} nor {@code PRIMARY KEY NONCLUSTERED} nor {@code CREATE CLUSTERED INDEX}, all documented T-SQL (learn.microsoft.com: DELETE, CREATE TABLE);
     * the exact-text assertions pin those, and the parse checks the rest, with the batch delete read as the
     * {@code SELECT TOP (n) * FROM t WITH (hints) WHERE …} of the same rows and {@code NONCLUSTERED} as
     * {@code CLUSTERED} (and a clustered index as a plain one).
     */
    private static void parse(String tsql) {
        String known = tsql.replaceFirst("^DELETE (TOP \\(\\d+\\)) FROM ", "SELECT $1 * FROM ")
                .replaceFirst("CONSTRAINT \\[\\w+\\] PRIMARY KEY NONCLUSTERED \\(", "PRIMARY KEY CLUSTERED (")
                .replace("PRIMARY KEY NONCLUSTERED (", "PRIMARY KEY CLUSTERED (")
                .replaceFirst("^CREATE CLUSTERED INDEX ", "CREATE INDEX ");
        assertEquals(1, SQLUtils.parseStatements(known, DbType.sqlserver).size(), tsql);
    }

    @Test
    void theParseCheckStillRejectsBrokenTsql() {
        org.junit.jupiter.api.Assertions.assertThrows(
                RuntimeException.class,
                () -> parse("DELETE TOP (500) FROM [t] WITH (ROWLOCK, READPAST, READCOMMITTEDLOCK) WHERE AND [a] < 1"));
        org.junit.jupiter.api.Assertions.assertThrows(
                RuntimeException.class,
                () -> parse("CREATE TABLE [t] ([a] INT NOT NULL, PRIMARY KEY NONCLUSTERED ([a])"));
    }
}
