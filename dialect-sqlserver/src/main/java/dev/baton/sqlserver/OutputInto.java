package dev.baton.sqlserver;

import dev.baton.ConfigurationException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * {@code OUTPUT} without {@code INTO} fails on a table with enabled triggers (error 334, learn.microsoft.com, OUTPUT
 * clause): there a batch update returns its rows through a table variable instead, in one batch: {@code DECLARE
 * @baton_rows TABLE (…); UPDATE … OUTPUT … INTO @baton_rows …; SELECT … FROM @baton_rows}. The variable's columns
 * take the types of the table's own columns, read from {@code sys.columns} (name, length, precision, scale,
 * collation; MAX types stay MAX, which table variables allow).
 */
final class OutputInto {
    /** The enabled triggers on a table, by its quoted name (learn.microsoft.com, sys.triggers). */
    static final String TRIGGERS_SQL =
            "SELECT COUNT(*) FROM sys.triggers WHERE parent_id = OBJECT_ID(?) AND is_disabled = 0";

    /**
     * The table's columns and their types. An alias type (e.g. {@code sysname}) is read as its system type; a CLR type
     * ({@code system_type_id} 240: hierarchyid, geometry, geography) by its own name.
     */
    static final String COLUMNS_SQL = "SELECT c.name, TYPE_NAME(CASE WHEN c.system_type_id = 240 THEN c.user_type_id"
            + " ELSE c.system_type_id END), c.max_length, c.precision, c.scale, c.collation_name FROM sys.columns c"
            + " WHERE c.object_id = OBJECT_ID(?)";

    /** SQL Server's error for OUTPUT without INTO on a table with enabled triggers. */
    static final int TRIGGERS_NEED_INTO = 334;

    static final String VARIABLE = "@baton_rows";

    private static final Pattern PLAIN = Pattern.compile("[A-Za-z_][A-Za-z0-9_]*");

    private OutputInto() {}

    /** True when {@code table} (quoted) has enabled triggers. */
    static boolean hasTriggers(Connection c, String table) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(TRIGGERS_SQL)) {
            ps.setString(1, table);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() && rs.getInt(1) > 0;
            }
        }
    }

    /** The declared types of the table's columns, by lower-case bare name. */
    static Map<String, String> columnTypes(Connection c, String table) throws SQLException {
        Map<String, String> types = new HashMap<>();
        try (PreparedStatement ps = c.prepareStatement(COLUMNS_SQL)) {
            ps.setString(1, table);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    types.put(
                            rs.getString(1).toLowerCase(Locale.ROOT),
                            declaredType(rs.getString(2), rs.getInt(3), rs.getInt(4), rs.getInt(5), rs.getString(6)));
                }
            }
        }
        return types;
    }

    /**
     * The type of a table-variable column that holds a value of the column described: lengths in bytes as {@code
     * sys.columns} gives them (-1 for MAX; N types take two bytes a character), {@code rowversion} as the {@code
     * binary(8)} it reads as, the deprecated {@code text}, {@code ntext} and {@code image} as their MAX successors,
     * text types with the column's collation.
     */
    static String declaredType(String name, int maxLength, int precision, int scale, String collation) {
        String type = plain(name, "type").toLowerCase(Locale.ROOT);
        String declared =
                switch (type) {
                    case "char", "varchar", "binary", "varbinary" -> type + "(" + length(maxLength, 1) + ")";
                    case "nchar", "nvarchar" -> type + "(" + length(maxLength, 2) + ")";
                    case "decimal", "numeric" -> type + "(" + precision + ", " + scale + ")";
                    case "datetime2", "time", "datetimeoffset" -> type + "(" + scale + ")";
                    case "float" -> "float(" + precision + ")";
                    case "timestamp", "rowversion" -> "binary(8)";
                    case "text" -> "varchar(max)";
                    case "ntext" -> "nvarchar(max)";
                    case "image" -> "varbinary(max)";
                    default -> type;
                };
        boolean text = type.endsWith("char") || type.equals("text") || type.equals("ntext");
        return text && collation != null ? declared + " COLLATE " + plain(collation, "collation") : declared;
    }

    private static String length(int maxLength, int bytesPerChar) {
        return maxLength == -1 ? "max" : String.valueOf(maxLength / bytesPerChar);
    }

    private static String plain(String name, String what) {
        if (name == null || !PLAIN.matcher(name).matches()) {
            throw new ConfigurationException("the catalog names a column " + what + " Baton cannot declare: " + name);
        }
        return name;
    }

    /**
     * The batch: the variable with one column per output expression, the statement with {@code INTO} after its
     * {@code OUTPUT} list, and the read of the variable.
     *
     * @param before the statement up to and including its {@code OUTPUT} list
     * @param after the rest of the statement
     * @param columns the quoted table columns the output expressions read, in order
     * @param types the table's column types ({@link #columnTypes})
     * @param table the quoted table, for messages
     */
    static String batch(String before, String after, List<String> columns, Map<String, String> types, String table) {
        List<String> declared = new ArrayList<>();
        List<String> names = new ArrayList<>();
        for (int i = 0; i < columns.size(); i++) {
            String column = columns.get(i);
            String bare = column.substring(1, column.length() - 1).toLowerCase(Locale.ROOT);
            String type = types.get(bare);
            if (type == null) {
                throw new ConfigurationException("column " + column + " of " + table + " is not in sys.columns");
            }
            String name = "[r" + (i + 1) + "]";
            names.add(name);
            declared.add(name + " " + type);
        }
        return "DECLARE " + VARIABLE + " TABLE (" + String.join(", ", declared) + "); " + before + " INTO " + VARIABLE
                + after + "; SELECT " + String.join(", ", names) + " FROM " + VARIABLE;
    }

    /**
     * Runs the batch and reads the rows of its SELECT, past the update counts of the UPDATE and of the triggers' own
     * statements. A trigger that returns rows itself (deprecated, refused under the server option {@code disallow
     * results from triggers}) would come first and is not supported.
     */
    static List<Object[]> rows(PreparedStatement ps, int width) throws SQLException {
        boolean result = ps.execute();
        while (!result) {
            if (ps.getUpdateCount() == -1) {
                throw new SQLException("the OUTPUT … INTO batch returned no rows");
            }
            result = ps.getMoreResults();
        }
        try (ResultSet rs = ps.getResultSet()) {
            return dev.baton.spi.Rows.read(rs, width);
        }
    }
}
