package dev.baton.sqlserver;

import dev.baton.spi.ColumnType;
import dev.baton.spi.ExclusiveLock;
import dev.baton.spi.Rows;
import dev.baton.spi.SqlFragment;
import dev.baton.spi.SqlVocabulary;
import java.util.ArrayList;
import java.util.List;

/** SQL Server's words: bracketed identifiers, {@code SYSUTCDATETIME()}, {@code DATEADD}, {@code ADD} without COLUMN. */
final class SqlServerSql implements SqlVocabulary {

    /** Core admits plain names only; a {@code ]} is doubled anyway, as T-SQL escapes it. */
    @Override
    public String quote(String identifier) {
        return '[' + identifier.replace("]", "]]") + ']';
    }

    /** Baton's own time columns hold UTC without a zone: written from the UTC clock, read back as UTC. */
    @Override
    public boolean clockIsUtcWallClock() {
        return true;
    }

    @Override
    public String currentTimestamp() {
        return "SYSUTCDATETIME()";
    }

    /** {@code DATEDIFF_BIG}: SQL Server 2016+; a plain {@code DATEDIFF} of microseconds overflows after 35 minutes. */
    @Override
    public String clockMicros() {
        return "DATEDIFF_BIG(MICROSECOND, CAST('19700101' AS DATETIME2(6)), SYSUTCDATETIME())";
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

    /** Read the id column's type: {@link #textParam} depends on it. */
    @Override
    public boolean typesTextParams() {
        return true;
    }

    /**
     * mssql-jdbc sends a text bind as NVARCHAR ({@code sendStringParametersAsUnicode}, true by default), which ranks
     * above VARCHAR: compared with a VARCHAR or CHAR column, the column is converted, and with a SQL collation an index
     * seek becomes a scan that takes an update lock on every row it reads. An ASCII value (the same characters in
     * every code page, so it compares exactly as the NVARCHAR value would) of up to 8,000 characters is therefore cast
     * to VARCHAR for such a column; other values and columns keep {@code ?}.
     */
    @Override
    public String textParam(String typeName, String value) {
        String type = typeName.toLowerCase(java.util.Locale.ROOT);
        boolean narrow = type.equals("varchar") || type.equals("char");
        return narrow && value.length() <= 8000 && value.chars().allMatch(ch -> ch < 0x80)
                ? "CAST(? AS VARCHAR(8000))"
                : "?";
    }

    /**
     * ASCII codes as plain literals: an {@code N'…'} literal against a VARCHAR state column converts the column and
     * turns an index seek into a scan. Other codes need {@code N'…'}.
     */
    @Override
    public String codeLiteral(Object code) {
        if (code instanceof String s) {
            String text = SqlVocabulary.checkedTextCode(s);
            return text.chars().allMatch(ch -> ch < 0x80) ? "'" + text + "'" : "N'" + text + "'";
        }
        return SqlVocabulary.super.codeLiteral(code);
    }

    /**
     * The claim index carries the columns the claim and the expiry sweep test beyond its key ({@code INCLUDE}): SQL
     * Server locks each row a statement reads before its residual predicates reject it, and under UPDLOCK holds the
     * lock to the end of the transaction, so a sweep that looked up every processing row's lease, or a claim that
     * read a backlog in backoff, would count towards the 5,000 locks at which it escalates to a table lock
     * (learn.microsoft.com, lock escalation).
     */
    @Override
    public String claimIndex(
            String quotedIndex,
            String quotedTable,
            List<String> columns,
            String activeGuard,
            List<String> residualColumns) {
        String index = claimIndex(quotedIndex, quotedTable, columns, activeGuard);
        return residualColumns.isEmpty() ? index : index + " INCLUDE (" + String.join(", ", residualColumns) + ")";
    }

    /** {@code SELECT TOP (n) …}: T-SQL has no {@code LIMIT}. */
    @Override
    public String firstRows(String select, int n) {
        if (!select.startsWith("SELECT ")) {
            throw new IllegalArgumentException("not a SELECT: " + select);
        }
        return "SELECT TOP (" + n + ") " + select.substring("SELECT ".length());
    }

    @Override
    public String addColumn(String quotedTable, String quotedColumn, String typeAndConstraints) {
        return "ALTER TABLE " + quotedTable + " ADD " + quotedColumn + " " + typeAndConstraints;
    }

    /**
     * {@code datetime} and {@code smalldatetime} round {@code SYSUTCDATETIME()} (to 3.33 ms, to the minute) and are
     * what {@code GETDATE()} (local time) usually fills; Baton's columns are {@code datetime2} or {@code
     * datetimeoffset}.
     */
    @Override
    public String zoneSafeTimestampFix(String quotedTable, String quotedColumn, String typeName, boolean nullable) {
        if (!"datetime".equalsIgnoreCase(typeName) && !"smalldatetime".equalsIgnoreCase(typeName)) {
            return null;
        }
        return alterColumnType(quotedTable, quotedColumn, "DATETIME2(6)", nullable);
    }

    /**
     * {@code GETDATE()}, {@code SYSDATETIME()} and {@code CURRENT_TIMESTAMP} (stored as {@code getdate()}) give the
     * server's local wall clock, the usual default of a host's time columns; into a {@code datetimeoffset} they are
     * stored with offset +00:00, the wrong instant. {@code SYSDATETIMEOFFSET()} is the right instant in a {@code
     * datetimeoffset}, but its local wall clock in a {@code datetime2} or {@code datetime}. {@code SYSUTCDATETIME()}
     * and {@code GETUTCDATE()} are UTC.
     */
    @Override
    public String utcDefaultFor(String typeName, String columnDefault) {
        boolean offset = "datetimeoffset".equalsIgnoreCase(typeName);
        String bare = SqlVocabulary.bareExpression(columnDefault);
        boolean local = bare.equals("getdate()")
                || bare.equals("sysdatetime()")
                || bare.equals("current_timestamp")
                || (!offset && bare.equals("sysdatetimeoffset()"));
        return !local ? null : offset ? "SYSDATETIMEOFFSET()" : "SYSUTCDATETIME()";
    }

    /**
     * Text codes match exactly: default collations ignore case, and {@code =} ignores trailing spaces under every
     * collation, so {@code 'paid'} and {@code 'PAID '} would pass for {@code 'PAID'}. The plain guard stays first for
     * the index seek; then each code must match under a binary collation with the same byte length as the code in the
     * column's own type: {@code ISNULL(NULLIF(col, col), code)} is the code converted to the column's type (NULLIF
     * and ISNULL return the type of their first argument, learn.microsoft.com), so VARCHAR and NVARCHAR count
     * characters right and CHAR and NCHAR pad the code as they pad the value ({@code LEFT(col, 0) + code} would be
     * VARCHAR, never as long as a padded CHAR). Integer codes keep the plain guard.
     */
    @Override
    public SqlFragment stateIn(String quotedColumn, List<Object> codes) {
        SqlFragment plain = SqlVocabulary.super.stateIn(quotedColumn, codes);
        if (!(codes.get(0) instanceof String)) {
            return plain;
        }
        List<String> exact = new ArrayList<>();
        for (Object code : codes) {
            String literal = codeLiteral(code);
            exact.add(quotedColumn + " COLLATE Latin1_General_100_BIN2 = " + literal + " AND DATALENGTH(" + quotedColumn
                    + ") = DATALENGTH(ISNULL(NULLIF(" + quotedColumn + ", " + quotedColumn + "), " + literal + "))");
        }
        String any = exact.size() == 1 ? exact.get(0) : "((" + String.join(") OR (", exact) + "))";
        return SqlFragment.join(" AND ", List.of(plain, SqlFragment.of(any)));
    }

    /** The lock of the claims of an unnamed table: {@link #exclusiveLock(long, String)} needs the table. */
    @Override
    public ExclusiveLock exclusiveLock(long key) {
        throw new UnsupportedOperationException(
                "SQL Server's claim lock reads the claimed table first: call" + " exclusiveLock(key, quotedTable)");
    }

    /**
     * An application lock owned by the transaction, which the end of the transaction releases; waits 60 s at most.
     * {@code sp_getapplock} with {@code @LockOwner = 'Transaction'} outside a transaction returns -999 without
     * taking the lock (learn.microsoft.com, sp_getapplock), and mssql-jdbc's {@code setAutoCommit(false)} only sets
     * {@code IMPLICIT_TRANSACTIONS ON}: no transaction begins until a statement that reads or writes a table (DECLARE,
     * EXEC and a SELECT without FROM begin none; SET IMPLICIT_TRANSACTIONS). So the batch first reads the claimed
     * table (no row), which begins the transaction, and refuses to go on without one. Not {@code BEGIN TRANSACTION}:
     * under IMPLICIT_TRANSACTIONS it leaves {@code @@TRANCOUNT} at 2, and the driver's one commit would leave a
     * transaction open.
     */
    @Override
    public ExclusiveLock exclusiveLock(long key, String quotedTable) {
        return new ExclusiveLock(
                "DECLARE @baton_lock INT = -999; SELECT @baton_lock = 0 FROM " + quotedTable + " WHERE 1 = 0;"
                        + " IF @@TRANCOUNT = 0 THROW 51000, N'the claim lock needs a transaction', 1;"
                        + " EXEC @baton_lock = sp_getapplock @Resource = N'" + ExclusiveLock.nameOf(key)
                        + "', @LockMode = 'Exclusive', @LockOwner = 'Transaction', @LockTimeout = 60000;"
                        + " SELECT CASE WHEN @baton_lock >= 0 THEN 1 ELSE 0 END",
                null);
    }

    /** {@code UPDLOCK, ROWLOCK, READPAST, READCOMMITTEDLOCK}: the batch update's hints, on a read by id. */
    @Override
    public String lockUnlockedIds(String quotedTable, String quotedIdColumn, int count) {
        return "SELECT " + quotedIdColumn + " FROM " + quotedTable
                + " WITH (UPDLOCK, ROWLOCK, READPAST, READCOMMITTEDLOCK) WHERE " + quotedIdColumn + " IN ("
                + Rows.placeholders(count) + ")";
    }
}
