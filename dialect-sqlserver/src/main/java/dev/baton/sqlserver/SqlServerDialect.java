package dev.baton.sqlserver;

import dev.baton.spi.ClaimSpec;
import dev.baton.spi.ClaimStatement;
import dev.baton.spi.DatabaseInfo;
import dev.baton.spi.Dialect;
import dev.baton.spi.SqlError;
import java.sql.SQLException;
import java.sql.SQLNonTransientConnectionException;
import java.sql.SQLRecoverableException;
import java.sql.SQLTransientConnectionException;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * SQL Server 2016 and later.
 *
 * <p>A claim is one statement under {@code WITH (UPDLOCK, READPAST, ROWLOCK)} returning the new values through
 * {@code OUTPUT inserted.…}: a CTE with {@code TOP (n) … ORDER BY} when the queue has an order, else {@code UPDATE TOP
 * (n)}. It runs at READ COMMITTED, never SNAPSHOT (READPAST is not allowed there, error 650), and batches stay at or
 * below 500 rows, under the lock-escalation threshold. {@code OUTPUT} without {@code INTO} fails on tables with
 * triggers.
 */
public final class SqlServerDialect implements Dialect {
    private static final Pattern CONSTRAINT = Pattern.compile("(?:constraint|unique index) '([^']+)'");

    @Override
    public String name() {
        return "sqlserver";
    }

    @Override
    public boolean supports(DatabaseInfo info) {
        return info.productName().toLowerCase(java.util.Locale.ROOT).contains("sql server") && info.major() >= 13;
    }

    @Override
    public int maxIdentifierLength() {
        return 128;
    }

    @Override
    public String quote(String identifier) {
        return '[' + identifier + ']';
    }

    @Override
    public String currentTimestamp() {
        return "SYSUTCDATETIME()";
    }

    @Override
    public String plusMillis(String timestampSql, long millis) {
        // DATEADD takes an int: whole seconds beyond ~24 days of milliseconds
        if (Math.abs(millis) > Integer.MAX_VALUE) {
            return "DATEADD(second, " + Math.toIntExact(millis / 1000) + ", " + timestampSql + ")";
        }
        return "DATEADD(millisecond, " + millis + ", " + timestampSql + ")";
    }

    @Override
    public String plusMillisParam(String timestampSql) {
        return "DATEADD(millisecond, ?, " + timestampSql + ")";
    }

    /**
     * ASCII codes as plain literals: an {@code N'…'} literal against a VARCHAR state column converts the column and
     * turns an index seek into a scan. Other codes need {@code N'…'}.
     */
    @Override
    public String codeLiteral(Object code) {
        if (code instanceof String s) {
            String text = Dialect.checkedTextCode(s);
            return text.chars().allMatch(ch -> ch < 0x80) ? "'" + text + "'" : "N'" + text + "'";
        }
        return Dialect.super.codeLiteral(code);
    }

    @Override
    public SqlError classify(SQLException e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (!(t instanceof SQLException s)) {
                if (t instanceof java.io.IOException) {
                    return SqlError.CONNECTION_LOST;
                }
                continue;
            }
            switch (s.getErrorCode()) {
                case 2627, 2601 -> {
                    Matcher m = CONSTRAINT.matcher(String.valueOf(s.getMessage()));
                    return SqlError.uniqueViolation(m.find() ? m.group(1) : null);
                }
                // deadlock victim, lock request timeout, snapshot update conflict
                case 1205, 1222, 3960 -> {
                    return SqlError.TRANSIENT;
                }
                default -> {}
            }
            if (s instanceof SQLTransientConnectionException
                    || s instanceof SQLNonTransientConnectionException
                    || s instanceof SQLRecoverableException
                    || (s.getSQLState() != null && s.getSQLState().startsWith("08"))) {
                return SqlError.CONNECTION_LOST;
            }
        }
        return SqlError.OTHER;
    }

    @Override
    public int maxBatchSize() {
        return 500;
    }

    @Override
    public String addColumn(String quotedTable, String quotedColumn, String typeAndConstraints) {
        return "ALTER TABLE " + quotedTable + " ADD " + quotedColumn + " " + typeAndConstraints;
    }

    @Override
    public String columnType(ColumnType type) {
        return switch (type) {
            case BIGINT -> "BIGINT";
            case INT -> "INT";
            case SHORT_TEXT -> "VARCHAR(64)";
            case TEXT -> "NVARCHAR(4000)";
            case TIMESTAMP -> "DATETIME2(6)";
        };
    }

    @Override
    public ClaimStatement claimStatement(ClaimSpec spec) {
        String output = "";
        if (!spec.returning().isEmpty()) {
            List<String> cols = new ArrayList<>();
            for (String c : spec.returning()) {
                cols.add("inserted." + c);
            }
            output = " OUTPUT " + String.join(", ", cols);
        }
        String hints = " WITH (UPDLOCK, READPAST, ROWLOCK)";
        String sql;
        List<Object> binds = new ArrayList<>();
        if (spec.orderBy().isEmpty()) {
            sql = "UPDATE TOP (" + spec.limit() + ") " + spec.table() + hints + " SET "
                    + spec.set().sql() + output + " WHERE " + spec.pickWhere().sql();
            binds.addAll(spec.set().binds());
            binds.addAll(spec.pickWhere().binds());
        } else {
            sql = "WITH baton_claim AS (SELECT TOP (" + spec.limit() + ") * FROM " + spec.table() + hints + " WHERE "
                    + spec.pickWhere().sql() + " ORDER BY " + String.join(", ", spec.orderBy())
                    + ") UPDATE baton_claim SET "
                    + spec.set().sql() + output + " WHERE " + spec.where().sql();
            binds.addAll(spec.pickWhere().binds());
            binds.addAll(spec.set().binds());
            binds.addAll(spec.where().binds());
        }
        String text = sql;
        int width = spec.returning().size();
        return ClaimStatement.singleStatement(text, binds, width);
    }

    @Override
    public List<String> idempotencyKeysDdl(String quotedTable, String quotedIndex) {
        return SqlServerLibraryTables.idempotencyKeysDdl(quotedTable, quotedIndex);
    }

    @Override
    public List<String> inboxDdl(String quotedTable, String quotedIndex) {
        return SqlServerLibraryTables.inboxDdl(quotedTable, quotedIndex);
    }

    @Override
    public String insertIfAbsent(
            String quotedTable, List<String> quotedColumns, List<String> values, List<String> quotedKeyColumns) {
        return SqlServerLibraryTables.insertIfAbsent(quotedTable, quotedColumns, values, quotedKeyColumns);
    }

    @Override
    public String lockingSelect(String quotedTable, String columns, String where) {
        return SqlServerLibraryTables.lockingSelect(quotedTable, columns, where);
    }

    @Override
    public String deleteBatch(String quotedTable, List<String> quotedKeyColumns, String where, int limit) {
        return SqlServerLibraryTables.deleteBatch(quotedTable, where, limit);
    }

    /** A filtered unique index: SQL Server's UNIQUE would allow one NULL dedup key only. */
    @Override
    public List<String> outboxDdl(String quotedTable, String bareTable) {
        return List.of(
                "CREATE TABLE " + quotedTable + " (\n"
                        + "    [id] BIGINT IDENTITY(1,1) NOT NULL PRIMARY KEY,\n"
                        + "    [topic] NVARCHAR(255) COLLATE Latin1_General_100_BIN2 NOT NULL,\n"
                        + "    [msg_key] NVARCHAR(255) COLLATE Latin1_General_100_BIN2 NULL,\n"
                        + "    [dedup_key] NVARCHAR(255) COLLATE Latin1_General_100_BIN2 NULL,\n"
                        + "    [payload] VARBINARY(MAX) NOT NULL,\n"
                        + "    [headers] NVARCHAR(MAX) NULL,\n"
                        + "    [status] INT NOT NULL,\n"
                        + "    [lease_until] DATETIME2(6) NULL,\n"
                        + "    [claim_token] BIGINT NULL,\n"
                        + "    [attempts] INT NOT NULL DEFAULT 0,\n"
                        + "    [next_attempt_at] DATETIME2(6) NULL,\n"
                        + "    [last_error] NVARCHAR(1000) NULL,\n"
                        + "    [created_at] DATETIME2(6) NOT NULL\n"
                        + ")",
                "CREATE UNIQUE INDEX " + quote(bareTable + "_dedup") + " ON " + quotedTable
                        + " ([dedup_key]) WHERE [dedup_key] IS NOT NULL",
                "CREATE INDEX " + quote(bareTable + "_claim") + " ON " + quotedTable + " ([status], [id])",
                "CREATE INDEX " + quote(bareTable + "_key") + " ON " + quotedTable + " ([msg_key], [status], [id])");
    }
}
