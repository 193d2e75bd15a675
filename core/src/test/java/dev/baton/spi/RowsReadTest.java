package dev.baton.spi;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.lang.reflect.Proxy;
import java.math.BigInteger;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.Types;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The JDBC calls {@link Rows#read} makes, recorded: signed BIGINT and INTEGER columns through {@code getLong} and
 * {@code getInt} (the {@code Long} and {@code Integer} JDBC's {@code getObject} mapping gives, NULL as null), every other
 * column, an unsigned one included (MariaDB returns {@code BigInteger} for {@code BIGINT UNSIGNED}), through
 * {@code getObject}; the metadata is read once per result set. The values on the real drivers are what the claim
 * suites of every dialect compare.
 */
class RowsReadTest {

    @Test
    void readsSignedIntegralColumnsTypedAndTheRestAsObjects() throws Exception {
        List<String> calls = new ArrayList<>();
        int[] types = {Types.BIGINT, Types.INTEGER, Types.BIGINT, Types.VARCHAR};
        boolean[] signed = {true, true, false, false};
        Object[][] data = {{7L, 1, BigInteger.TEN, "a"}, {null, null, null, null}};
        int[] row = {-1};
        boolean[] wasNull = {false};
        ResultSetMetaData md = (ResultSetMetaData) Proxy.newProxyInstance(
                getClass().getClassLoader(), new Class<?>[] {ResultSetMetaData.class}, (p, m, args) -> {
                    calls.add(m.getName() + Arrays.toString(args));
                    int column = (Integer) args[0];
                    return m.getName().equals("getColumnType") ? (Object) types[column - 1] : signed[column - 1];
                });
        ResultSet rs = (ResultSet)
                Proxy.newProxyInstance(getClass().getClassLoader(), new Class<?>[] {ResultSet.class}, (p, m, args) -> {
                    switch (m.getName()) {
                        case "next":
                            return ++row[0] < data.length;
                        case "getMetaData":
                            calls.add("getMetaData");
                            return md;
                        case "wasNull":
                            return wasNull[0];
                        default:
                            calls.add(m.getName() + Arrays.toString(args));
                            Object v = data[row[0]][(Integer) args[0] - 1];
                            wasNull[0] = v == null;
                            return switch (m.getName()) {
                                case "getLong" -> v == null ? 0L : v;
                                case "getInt" -> v == null ? 0 : v;
                                default -> v;
                            };
                    }
                });
        List<Object[]> rows = Rows.read(rs, 4);
        assertEquals(2, rows.size());
        assertArrayEquals(new Object[] {7L, 1, BigInteger.TEN, "a"}, rows.get(0));
        assertArrayEquals(new Object[] {null, null, null, null}, rows.get(1));
        assertEquals(Long.class, rows.get(0)[0].getClass());
        assertEquals(Integer.class, rows.get(0)[1].getClass());
        assertEquals(1, calls.stream().filter(c -> c.equals("getMetaData")).count());
        assertEquals(
                List.of("getLong[1]", "getInt[2]", "getObject[3]", "getObject[4]"),
                calls.stream()
                        .filter(c -> c.startsWith("get") && !c.startsWith("getMeta") && !c.startsWith("getColumn"))
                        .limit(4)
                        .toList());
    }
}
