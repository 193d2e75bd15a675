package dev.baton.spi;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.lang.reflect.Proxy;
import java.sql.PreparedStatement;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The JDBC calls {@link Rows#bind} makes, recorded. A null must reach the driver untyped through
 * {@code setObject(i, null)}: mssql-jdbc sends {@code setNull(i, Types.NULL)} as a varbinary NULL, which SQL Server
 * will not convert to date, time, datetime2 or datetimeoffset (error 257; microsoft/mssql-jdbc#1427), while
 * {@code setObject(i, null)} goes as a CHAR NULL, which converts to every type. The behaviour on PostgreSQL and
 * MariaDB is {@code AbstractTransitionCompatibilityTest.setsATimestampColumnToNull}.
 */
class RowsBindTest {

    @Test
    void bindsNullThroughSetObjectWithoutAType() throws Exception {
        List<String> calls = new ArrayList<>();
        PreparedStatement ps = (PreparedStatement) Proxy.newProxyInstance(
                getClass().getClassLoader(), new Class<?>[] {PreparedStatement.class}, (proxy, method, args) -> {
                    calls.add(method.getName() + Arrays.toString(args));
                    return null;
                });
        int next = Rows.bind(ps, 3, Arrays.asList("a", null, 7L));
        assertEquals(6, next);
        assertEquals(List.of("setString[3, a]", "setObject[4, null]", "setLong[5, 7]"), calls);
    }
}
