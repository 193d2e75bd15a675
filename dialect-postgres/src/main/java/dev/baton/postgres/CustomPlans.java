package dev.baton.postgres;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.sql.PreparedStatement;
import java.sql.SQLException;

/**
 * Makes pgjdbc send one execution of a statement unnamed ({@code PGStatement.setPrepareThreshold(0)}), so that
 * PostgreSQL plans it for the table as it is. A claim that pgjdbc prepares on the server (from its fifth
 * execution) gets one generic plan from PostgreSQL after five custom ones, and keeps it until the table's statistics
 * change: made while the queue was empty (vacuumed empty, as autovacuum leaves a drained queue), it is a sequential
 * scan, or for an outbox a nested loop that scans the table once per pending message, long after the backlog arrived
 * ({@code PostgresStalePlanTest}). The driver is reached by reflection: this module does not depend on it, and another
 * driver's statement is left as it is.
 */
final class CustomPlans {
    private static final String PG_STATEMENT = "org.postgresql.PGStatement";

    /** The driver's interface and its setter, found once from the first statement's class loader. */
    private record Driver(Class<?> type, MethodHandle setPrepareThreshold) {}

    private static volatile Driver driver;
    private static volatile boolean absent;

    private CustomPlans() {}

    /** Tells pgjdbc never to prepare {@code ps} on the server; does nothing for another driver. */
    static void everyTime(PreparedStatement ps) throws SQLException {
        Driver d = driver(ps);
        if (d == null || !ps.isWrapperFor(d.type())) {
            return;
        }
        try {
            d.setPrepareThreshold().invoke(ps.unwrap(d.type()), 0);
        } catch (SQLException | RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
    }

    private static Driver driver(PreparedStatement ps) {
        Driver d = driver;
        if (d != null || absent) {
            return d;
        }
        try {
            Class<?> type = Class.forName(PG_STATEMENT, false, ps.getClass().getClassLoader());
            MethodHandle set = MethodHandles.publicLookup()
                    .findVirtual(type, "setPrepareThreshold", MethodType.methodType(void.class, int.class));
            d = new Driver(type, set);
            driver = d;
            return d;
        } catch (ReflectiveOperationException | LinkageError e) {
            absent = true;
            return null;
        }
    }
}
