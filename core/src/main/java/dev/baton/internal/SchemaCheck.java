package dev.baton.internal;

import dev.baton.SchemaMismatchException;
import dev.baton.StateMachine;
import dev.baton.internal.values.Identifiers;
import dev.baton.spi.ColumnType;
import dev.baton.spi.Dialect;
import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * Checks a host table against what a binding needs, through {@link DatabaseMetaData}, collecting every problem and
 * the DDL that fixes it before throwing one {@link SchemaMismatchException}.
 */
public final class SchemaCheck {
    private final Connection connection;
    private final Dialect dialect;
    private final String table;
    private final String qTable;
    private final String schema;
    private final String bareTable;
    private final Map<String, ColumnInfo> columns = new HashMap<>();
    private final List<String> problems = new ArrayList<>();
    private final List<String> ddl = new ArrayList<>();
    private boolean tableFound;
    private String foundTable;

    /** Column facts read from the metadata; {@code columnDefault} is {@code COLUMN_DEF}, null for none. */
    public record ColumnInfo(
            String name, int jdbcType, String typeName, int size, boolean nullable, String columnDefault) {}

    /** Reads the table's columns now. */
    public SchemaCheck(Connection connection, Dialect dialect, String table) throws SQLException {
        this.connection = connection;
        this.dialect = dialect;
        this.table = table;
        this.qTable = Identifiers.quoteTable(dialect, table);
        String[] parts = Identifiers.splitTable(table);
        this.schema = parts.length == 2 ? parts[0] : null;
        this.bareTable = parts.length == 2 ? parts[1] : parts[0];
        readColumns();
    }

    private void readColumns() throws SQLException {
        DatabaseMetaData md = connection.getMetaData();
        for (String candidate :
                new String[] {bareTable, bareTable.toLowerCase(Locale.ROOT), bareTable.toUpperCase(Locale.ROOT)}) {
            try (ResultSet rs = md.getColumns(connection.getCatalog(), schemaPattern(), candidate, "%")) {
                while (rs.next()) {
                    String name = rs.getString("COLUMN_NAME");
                    columns.put(
                            name.toLowerCase(Locale.ROOT),
                            new ColumnInfo(
                                    name,
                                    rs.getInt("DATA_TYPE"),
                                    rs.getString("TYPE_NAME"),
                                    rs.getInt("COLUMN_SIZE"),
                                    rs.getInt("NULLABLE") != DatabaseMetaData.columnNoNulls,
                                    rs.getString("COLUMN_DEF")));
                }
            }
            if (!columns.isEmpty()) {
                tableFound = true;
                foundTable = candidate;
                if (!candidate.equals(bareTable)) {
                    problems.add("table is named " + candidate + " in the database but configured as " + bareTable
                            + "; Baton quotes names, so they must match exactly");
                }
                return;
            }
        }
        problems.add("table " + table + " does not exist");
    }

    private String schemaPattern() throws SQLException {
        if (schema != null) {
            return schema;
        }
        try {
            return connection.getSchema();
        } catch (SQLException | AbstractMethodError e) {
            return null;
        }
    }

    /** True when the table exists. */
    public boolean tableFound() {
        return tableFound;
    }

    /** The column, if present (names compare case-insensitively). */
    public ColumnInfo column(String name) {
        return columns.get(name.toLowerCase(Locale.ROOT));
    }

    /** Requires that {@code column} is the primary key or has a unique index of its own. */
    public void requireUniqueKey(String column) throws SQLException {
        if (!tableFound) {
            return;
        }
        if (column(column) == null) {
            problems.add("id column " + column + " does not exist");
            return;
        }
        String actual = actualTableName();
        DatabaseMetaData md = connection.getMetaData();
        List<String> pk = new ArrayList<>();
        try (ResultSet rs = md.getPrimaryKeys(connection.getCatalog(), schemaPattern(), actual)) {
            while (rs.next()) {
                pk.add(rs.getString("COLUMN_NAME").toLowerCase(Locale.ROOT));
            }
        }
        if (pk.size() == 1 && pk.get(0).equalsIgnoreCase(column)) {
            return;
        }
        Map<String, Set<String>> unique = new HashMap<>();
        try (ResultSet rs = md.getIndexInfo(connection.getCatalog(), schemaPattern(), actual, true, false)) {
            while (rs.next()) {
                String idx = rs.getString("INDEX_NAME");
                String col = rs.getString("COLUMN_NAME");
                if (idx != null && col != null) {
                    unique.computeIfAbsent(idx, k -> new HashSet<>()).add(col.toLowerCase(Locale.ROOT));
                }
            }
        }
        for (Set<String> cols : unique.values()) {
            if (cols.size() == 1 && cols.contains(column.toLowerCase(Locale.ROOT))) {
                return;
            }
        }
        problems.add("id column " + column + " is neither the primary key nor unique on its own");
        ddl.add("CREATE UNIQUE INDEX " + Identifiers.quote(dialect, shortName("ux_" + bareTable + "_" + column))
                + " ON " + qTable + " (" + Identifiers.quote(dialect, column) + ")");
    }

    /** Requires a state column able to hold the machine's codes. */
    public void requireStateColumn(String column, StateMachine<?> machine) {
        if (!tableFound) {
            return;
        }
        ColumnInfo info = column(column);
        boolean integer = machine.codeKind() == StateMachine.CodeKind.INTEGER;
        int longest = 1;
        for (Object s : machine.states()) {
            @SuppressWarnings({"unchecked", "rawtypes"})
            Object code = ((StateMachine) machine).code((Enum) s);
            longest = Math.max(longest, String.valueOf(code).length());
        }
        if (info == null) {
            String type = integer
                    ? dialect.sql().columnType(ColumnType.INT)
                    : dialect.sql().columnType(ColumnType.SHORT_TEXT);
            problems.add("state column " + column + " does not exist");
            ddl.add(dialect.sql().addColumn(qTable, Identifiers.quote(dialect, column), type + " NOT NULL"));
            return;
        }
        if (integer && !isInteger(info)) {
            problems.add("state column " + column + " is " + info.typeName() + " but machine '" + machine.name()
                    + "' stores integer codes");
        } else if (!integer && !isText(info)) {
            problems.add("state column " + column + " is " + info.typeName() + " but machine '" + machine.name()
                    + "' stores string codes");
        } else if (!integer && isFixedWidthText(info)) {
            requireVariableWidth(column, info, longest);
        } else if (!integer && info.size() > 0 && info.size() < longest) {
            problems.add("state column " + column + " holds " + info.size() + " characters but the longest code of"
                    + " machine '" + machine.name() + "' has " + longest);
        }
    }

    /**
     * A CHAR/NCHAR state column pads codes with spaces: PostgreSQL and SQL Server return {@code 'PAID      '}, which
     * is no state, so every read would throw. Refused, with the DDL to a VARCHAR of the same width.
     */
    private void requireVariableWidth(String column, ColumnInfo info, int longest) {
        boolean national = info.jdbcType() == Types.NCHAR;
        String type = (national ? "NVARCHAR(" : "VARCHAR(") + Math.max(info.size(), longest) + ")";
        problems.add("state column " + column + " is " + info.typeName() + "(" + info.size() + "), a fixed-width type"
                + " whose values read back padded with spaces, matching no state; use " + type);
        ddl.add(dialect.sql().alterColumnType(qTable, Identifiers.quote(dialect, column), type, info.nullable()));
    }

    private static boolean isFixedWidthText(ColumnInfo c) {
        return c.jdbcType() == Types.CHAR || c.jdbcType() == Types.NCHAR;
    }

    /** Requires a column of a kind, suggesting DDL with {@code typeAndConstraints} if missing. */
    public void requireColumn(String column, ColumnType type, String constraints) {
        if (!tableFound) {
            return;
        }
        ColumnInfo info = column(column);
        if (info == null) {
            problems.add("column " + column + " does not exist");
            ddl.add(dialect.sql()
                    .addColumn(
                            qTable,
                            Identifiers.quote(dialect, column),
                            dialect.sql().columnType(type) + (constraints.isEmpty() ? "" : " " + constraints)));
            return;
        }
        boolean ok =
                switch (type) {
                    case BIGINT, INT -> isInteger(info);
                    case SHORT_TEXT, TEXT -> isText(info);
                    case TIMESTAMP -> isTimestamp(info);
                };
        if (!ok) {
            problems.add("column " + column + " is " + info.typeName() + ", expected "
                    + dialect.sql().columnType(type));
        }
    }

    /**
     * Requires that {@code column} accepts no NULL, suggesting an {@code UPDATE} that sets its NULLs to {@code
     * fillLiteral} and the DDL that makes it NOT NULL. A missing column is left to the other checks.
     *
     * @param column the column
     * @param why what the column is for, and why a NULL breaks it (for the message)
     * @param fillLiteral the SQL literal that replaces the NULLs, e.g. {@code 0}
     */
    public void requireNotNull(String column, String why, String fillLiteral) {
        ColumnInfo info = tableFound ? column(column) : null;
        if (info == null || !info.nullable()) {
            return;
        }
        String quoted = Identifiers.quote(dialect, column);
        problems.add("column " + column + " (" + why + ") accepts NULL; it must be NOT NULL");
        ddl.add("UPDATE " + qTable + " SET " + quoted + " = " + fillLiteral + " WHERE " + quoted + " IS NULL");
        ddl.add(dialect.sql().setNotNull(qTable, quoted, info.typeName()));
    }

    /**
     * Requires that a timestamp column compares correctly with the database's clock whatever the session's time zone
     * (see {@link dev.baton.spi.SqlVocabulary#zoneSafeTimestampFix}), and that its default does not fill it with a
     * local wall clock (see {@link dev.baton.spi.SqlVocabulary#utcDefaultFor}). A missing or non-timestamp column is
     * left to the other checks.
     *
     * @param column the column
     * @param purpose what the column is for, e.g. {@code lease}
     */
    public void requireZoneSafeTimestamp(String column, String purpose) {
        if (!tableFound) {
            return;
        }
        ColumnInfo info = column(column);
        if (info == null || !isTimestamp(info)) {
            return;
        }
        String fix = dialect.sql()
                .zoneSafeTimestampFix(qTable, Identifiers.quote(dialect, column), info.typeName(), info.nullable());
        if (fix != null) {
            problems.add(purpose + " column " + column + " is " + info.typeName() + ", whose values depend on the"
                    + " session's time zone (or end in 2038); Baton compares it with the database's UTC clock, so"
                    + " sessions in different zones would disagree about it; use "
                    + dialect.sql().columnType(ColumnType.TIMESTAMP));
            ddl.add(fix);
            return;
        }
        String utc = info.columnDefault() == null
                ? null
                : dialect.sql().utcDefaultFor(info.typeName(), info.columnDefault());
        if (utc != null) {
            problems.add(purpose + " column " + column + " defaults to "
                    + info.columnDefault().trim() + ", a local"
                    + " wall clock (the server's or the session's time zone); Baton writes and compares it in UTC ("
                    + dialect.sql().currentTimestamp() + "), so rows the default fills would look older or younger"
                    + " by the zone's offset; make its default " + utc + " and have your own writes store UTC");
        }
    }

    /**
     * Checks that the connection reaches a server that takes writes: Baton decides (claims, transitions, completions)
     * only on the writer, and a data source that reaches a standby, a replica or a fenced old primary would have
     * every decision refused and retried. Inspection may read a replica through {@code Baton.Builder.reader}.
     */
    public void requireWriter() throws SQLException {
        if (dialect.diagnostics().refusesWrites(connection)) {
            problem(
                    "the data source Baton decides on reaches a server that refuses writes (a standby, a replica or a"
                            + " primary fenced by a failover): give Baton the writer's data source, and a replica only"
                            + " as Baton.Builder.reader(...) for inspection",
                    null);
        }
    }

    /**
     * Checks the session as the dialect's detection does ({@code Diagnostics.sessionProblems}): a data source given an
     * explicit dialect skips the detection, so {@code verify()} is where such a session is found (on a Galera node,
     * a {@code wsrep_sync_wait} without the read bit lets the read-back after a guarded update read stale state).
     */
    public void requireSession() throws SQLException {
        dialect.diagnostics().engineProblem(connection).ifPresent(p -> problem(p, null));
        for (String p : dialect.diagnostics().sessionProblems(connection)) {
            problem("the sessions of the data source are not set up as Baton needs: " + p, null);
        }
    }

    /** Adds a problem found by a caller (with optional DDL). */
    public void problem(String problem, String fixDdl) {
        problems.add(problem);
        if (fixDdl != null) {
            ddl.add(fixDdl);
        }
    }

    /** Adds a problem found by a caller, fixed by the statements {@code fixDdl}. */
    public void problemFixedBy(String problem, List<String> fixDdl) {
        problems.add(problem);
        ddl.addAll(fixDdl);
    }

    /** True when a problem was found so far. */
    public boolean hasProblems() {
        return !problems.isEmpty();
    }

    /** Throws if any problem was found. */
    public void throwIfProblems() {
        if (!problems.isEmpty()) {
            throw new SchemaMismatchException(table, problems, ddl);
        }
    }

    private String actualTableName() {
        return foundTable;
    }

    private String shortName(String name) {
        return name.length() <= dialect.traits().maxIdentifierLength()
                ? name
                : name.substring(0, dialect.traits().maxIdentifierLength());
    }

    private static boolean isInteger(ColumnInfo c) {
        return switch (c.jdbcType()) {
            case Types.INTEGER, Types.SMALLINT, Types.BIGINT, Types.TINYINT -> true;
            case Types.NUMERIC, Types.DECIMAL -> true;
            default -> false;
        };
    }

    private static boolean isText(ColumnInfo c) {
        return switch (c.jdbcType()) {
            case Types.CHAR, Types.VARCHAR, Types.NCHAR, Types.NVARCHAR, Types.LONGVARCHAR, Types.LONGNVARCHAR -> true;
            default -> false;
        };
    }

    private static boolean isTimestamp(ColumnInfo c) {
        return switch (c.jdbcType()) {
            case Types.TIMESTAMP, Types.TIMESTAMP_WITH_TIMEZONE -> true;
            default ->
                c.typeName() != null && c.typeName().toLowerCase(Locale.ROOT).contains("time");
        };
    }
}
