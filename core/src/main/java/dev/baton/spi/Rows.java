package dev.baton.spi;

import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
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

    /** Reads every row of {@code rs} as an array of {@code width} columns. */
    public static List<@Nullable Object[]> read(ResultSet rs, int width) throws SQLException {
        List<@Nullable Object[]> rows = new ArrayList<>();
        while (rs.next()) {
            @Nullable Object[] row = new Object[width];
            for (int i = 0; i < width; i++) {
                row[i] = rs.getObject(i + 1);
            }
            rows.add(row);
        }
        return rows;
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
