package dev.baton.postgres;

import dev.baton.spi.Notifications;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.reflect.Array;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;

/**
 * {@code LISTEN}/{@code NOTIFY}: {@code pg_notify(channel, payload)} in the sending transaction (PostgreSQL delivers it
 * when that transaction commits, never when it rolls back), {@code LISTEN "channel"} on a connection held open, and
 * pgjdbc's {@code PGConnection.getNotifications(timeout)} to wait for them: it reads the socket and sends no statement.
 * The driver is reached by reflection, as {@link CustomPlans} reaches it: this module does not depend on it. Behind
 * PgBouncer in transaction mode a listening client is bound to no server between transactions and receives nothing;
 * the listener's start-up probe finds that out.
 */
final class PostgresNotifications implements Notifications {
    private static final String PG_CONNECTION = "org.postgresql.PGConnection";
    private static final String PG_NOTIFICATION = "org.postgresql.PGNotification";

    /** The driver's interfaces and methods, found once. */
    private record Driver(Class<?> connection, MethodHandle getNotifications, MethodHandle getParameter) {}

    private static volatile Driver driver;

    @Override
    public boolean supported() {
        return true;
    }

    @Override
    public String notifySql() {
        return "SELECT pg_notify(?, ?)";
    }

    @Override
    public void listen(Connection connection, String quotedChannel) throws SQLException {
        driver(connection); // fails here, before LISTEN, with a driver that cannot wait for notifications
        try (Statement s = connection.createStatement()) {
            s.execute("LISTEN " + quotedChannel);
        }
    }

    @Override
    public void unlistenAll(Connection connection) throws SQLException {
        try (Statement s = connection.createStatement()) {
            s.execute("UNLISTEN *");
        }
        await(
                connection,
                1); // pgjdbc keeps what arrived until it is asked: dropped here, not left to the next borrower
    }

    @Override
    public List<String> await(Connection connection, int timeoutMillis) throws SQLException {
        Driver d = driver(connection);
        Object found;
        try {
            found = d.getNotifications().invoke(connection.unwrap(d.connection()), Math.max(1, timeoutMillis));
        } catch (SQLException | RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new SQLException("PGConnection.getNotifications failed", t);
        }
        if (found == null) {
            return List.of();
        }
        int n = Array.getLength(found);
        List<String> payloads = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            try {
                payloads.add((String) d.getParameter().invoke(Array.get(found, i)));
            } catch (RuntimeException | Error e) {
                throw e;
            } catch (Throwable t) {
                throw new SQLException("PGNotification.getParameter failed", t);
            }
        }
        return payloads;
    }

    private static Driver driver(Connection c) throws SQLException {
        Driver d = driver;
        if (d != null) {
            return d;
        }
        List<ClassLoader> loaders = new ArrayList<>();
        loaders.add(c.getClass().getClassLoader());
        loaders.add(Thread.currentThread().getContextClassLoader());
        loaders.add(PostgresNotifications.class.getClassLoader());
        for (ClassLoader loader : loaders) {
            try {
                Class<?> conn = Class.forName(PG_CONNECTION, false, loader);
                if (!c.isWrapperFor(conn)) {
                    continue;
                }
                Class<?> note = Class.forName(PG_NOTIFICATION, false, loader);
                MethodHandles.Lookup lookup = MethodHandles.publicLookup();
                MethodHandle get = lookup.findVirtual(
                        conn, "getNotifications", MethodType.methodType(note.arrayType(), int.class));
                MethodHandle param = lookup.findVirtual(note, "getParameter", MethodType.methodType(String.class));
                d = new Driver(conn, get, param);
                driver = d;
                return d;
            } catch (ReflectiveOperationException | LinkageError e) {
                // not visible from this loader: try the next
            }
        }
        throw new SQLException("waiting for notifications needs pgjdbc (" + PG_CONNECTION + "), and "
                + c.getClass().getName() + " is not one; workers in other processes are not woken, they poll");
    }
}
