package dev.baton.bench.jmh;

import java.lang.reflect.InvocationHandler;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import javax.sql.DataSource;

/**
 * A JDBC driver that does nothing: one connection, whose prepared statements accept any bind, report a fixed number of
 * updated rows and return a fixed number of generated rows. Lets JMH time the client-side work of a transition (Baton's, or hand-written JDBC's) without a database or a
 * real driver. Both sides pay the same dynamic-proxy dispatch (some ns per JDBC call).
 */
final class StubJdbc {
    private StubJdbc() {}

    static DataSource dataSource() {
        return dataSource(0, 1);
    }

    /**
     * A stub whose queries return {@code rows} rows (column 1 a {@code Long} id, column 2 an {@code Integer}, further
     * columns a 100-character {@code String}; a fresh cursor per query) and whose updates report {@code updated} rows.
     */
    static DataSource dataSource(int rows, int updated) {
        String text = "x".repeat(100);
        PreparedStatement ps = proxy(PreparedStatement.class, (name, args) -> switch (name) {
            case "executeUpdate" -> updated;
            case "executeQuery" -> resultSet(rows, text);
            default -> null;
        });
        Connection c = proxy(Connection.class, (name, args) -> switch (name) {
            case "prepareStatement" -> ps;
            case "getAutoCommit" -> Boolean.TRUE;
            case "getTransactionIsolation" -> Connection.TRANSACTION_READ_COMMITTED;
            default -> null;
        });
        return proxy(DataSource.class, (name, args) -> name.equals("getConnection") ? c : null);
    }

    private static ResultSet resultSet(int rows, String text) {
        int[] row = {0};
        return proxy(ResultSet.class, (name, args) -> switch (name) {
            case "next" -> ++row[0] <= rows;
            case "getObject" -> column((Integer) args[0], row[0], text);
            case "getLong" -> (long) row[0] + 1_000_000;
            case "getInt" -> 1;
            case "getString" -> text;
            default -> null;
        });
    }

    private static Object column(int index, int row, String text) {
        return switch (index) {
            case 1 -> (long) row + 1_000_000; // outside the Long cache, as real ids are
            case 2 -> 1;
            default -> text;
        };
    }

    @FunctionalInterface
    private interface Answer {
        Object answer(String method, Object[] args);
    }

    private static <T> T proxy(Class<T> type, Answer answer) {
        InvocationHandler h = (Object self, Method m, Object[] args) -> {
            switch (m.getName()) {
                case "hashCode":
                    return System.identityHashCode(self);
                case "equals":
                    return self == args[0];
                case "toString":
                    return "stub " + type.getSimpleName();
                default:
                    break;
            }
            Object r = answer.answer(m.getName(), args);
            return r != null ? r : zero(m.getReturnType());
        };
        return type.cast(Proxy.newProxyInstance(StubJdbc.class.getClassLoader(), new Class<?>[] {type}, h));
    }

    private static Object zero(Class<?> t) {
        if (!t.isPrimitive() || t == void.class) {
            return null;
        }
        if (t == boolean.class) {
            return Boolean.FALSE;
        }
        if (t == long.class) {
            return 0L;
        }
        if (t == double.class) {
            return 0.0;
        }
        if (t == float.class) {
            return 0f;
        }
        if (t == short.class) {
            return (short) 0;
        }
        if (t == byte.class) {
            return (byte) 0;
        }
        if (t == char.class) {
            return (char) 0;
        }
        return 0;
    }
}
