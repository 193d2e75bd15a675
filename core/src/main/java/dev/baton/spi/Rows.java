package dev.baton.spi;

import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Types;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.jspecify.annotations.Nullable;

/** JDBC helpers shared by dialect implementations. */
public final class Rows {
    private Rows() {}

    /** Binds values in order starting at {@code first}; returns the next free index. */
    public static int bind(PreparedStatement ps, int first, List<@Nullable Object> values) throws SQLException {
        int i = first;
        for (@Nullable Object v : values) {
            if (v == null) {
                // untyped: mssql-jdbc sends setNull(i, Types.NULL) as a varbinary NULL, which SQL Server will not
                // convert to date/time/datetime2/datetimeoffset (error 257, microsoft/mssql-jdbc#1427); a
                // setObject null goes as CHAR, which converts to every type. pgjdbc and MariaDB send it unspecified.
                ps.setObject(i++, null);
            } else if (v instanceof Long l) {
                ps.setLong(i++, l);
            } else if (v instanceof Integer n) {
                ps.setInt(i++, n);
            } else if (v instanceof String s) {
                ps.setString(i++, s);
            } else {
                ps.setObject(i++, v);
            }
        }
        return i;
    }

    /**
     * Reads every row of {@code rs} as an array of {@code width} columns, each value as {@code getObject} returns it.
     * Signed {@code BIGINT} and {@code INTEGER} columns (a claim's id and attempts) are read with {@code getLong} and
     * {@code getInt}, which give the {@code Long} and {@code Integer} that JDBC's {@code getObject} mapping gives for
     * them without the driver's per-value type lookup (pgjdbc resolves each value's type through its type cache).
     */
    public static List<@Nullable Object[]> read(ResultSet rs, int width) throws SQLException {
        List<@Nullable Object[]> rows = new ArrayList<>();
        int[] reads = null;
        while (rs.next()) {
            if (reads == null) {
                reads = reads(rs, width);
            }
            @Nullable Object[] row = new Object[width];
            for (int i = 0; i < width; i++) {
                row[i] = value(rs, i + 1, reads[i]);
            }
            rows.add(row);
        }
        return rows;
    }

    private static final int AS_OBJECT = 0;
    private static final int AS_LONG = 1;
    private static final int AS_INT = 2;

    /** How each column is read: typed where its metadata says a signed BIGINT or INTEGER, else as an object. */
    private static int[] reads(ResultSet rs, int width) {
        int[] reads = new int[width];
        try {
            ResultSetMetaData md = rs.getMetaData();
            if (md == null) {
                return reads;
            }
            for (int i = 0; i < width; i++) {
                int type = md.getColumnType(i + 1);
                if ((type == Types.BIGINT || type == Types.INTEGER) && md.isSigned(i + 1)) {
                    reads[i] = type == Types.BIGINT ? AS_LONG : AS_INT;
                }
            }
        } catch (SQLException | RuntimeException e) {
            return new int[width]; // a driver without such metadata: every value as getObject returns it
        }
        return reads;
    }

    private static @Nullable Object value(ResultSet rs, int column, int read) throws SQLException {
        switch (read) {
            case AS_LONG -> {
                long v = rs.getLong(column);
                return rs.wasNull() ? null : v;
            }
            case AS_INT -> {
                int v = rs.getInt(column);
                return rs.wasNull() ? null : v;
            }
            default -> {
                return rs.getObject(column);
            }
        }
    }

    /** {@code n} empty rows, for claims that return only a count. */
    public static List<Object[]> empty(int n) {
        return Collections.nCopies(n, new Object[0]);
    }

    /** {@code ?, ?, ?} with {@code n} placeholders. */
    public static String placeholders(int n) {
        return String.join(", ", Collections.nCopies(n, "?"));
    }
}
