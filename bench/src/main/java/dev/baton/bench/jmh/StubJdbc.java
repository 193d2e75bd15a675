package dev.baton.bench.jmh;

import java.lang.reflect.InvocationHandler;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.PreparedStatement;
import javax.sql.DataSource;

/**
 * A JDBC driver that does nothing: one connection, whose prepared statements accept any bind and report one updated
 * row. Lets JMH time the client-side work of a transition (Baton's, or hand-written JDBC's) without a database or a
 * real driver. Both sides pay the same dynamic-proxy dispatch (some ns per JDBC call).
 */
final class StubJdbc {
    private StubJdbc() {}

    static DataSource dataSource() {
        PreparedStatement ps = proxy(PreparedStatement.class, (name, args) -> switch (name) {
            case "executeUpdate" -> 1;
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
