package dev.baton.bench.claim;

import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.util.Locale;
import java.util.concurrent.atomic.LongAdder;
import javax.sql.DataSource;

/**
 * Counts what a drainer asks of the pool and the driver: connections borrowed, statements executed, explicit commits
 * and rollbacks, and the calls that may cost a round trip on some driver ({@code setAutoCommit},
 * {@code getTransactionIsolation}, {@code setTransactionIsolation}). Both variants of a workload drain through it, so
 * the counts per batch compare Baton with the hand-written code statement by statement. One counter per JVM: one run
 * at a time. The proxies cost both variants alike (a reflective call per JDBC call; estimated at a few hundredths of a
 * µs per row at batch 100);
 * {@code -Dbaton.bench.countStatements=false} turns them off.
 */
final class StatementCount {
    private static final boolean ON = !"false".equals(System.getProperty("baton.bench.countStatements"));

    private static final LongAdder BORROWS = new LongAdder();
    private static final LongAdder EXECUTES = new LongAdder();
    private static final LongAdder COMMITS = new LongAdder();
    private static final LongAdder SETTINGS = new LongAdder();

    private StatementCount() {}

    /** Zeroes the counters. */
    static void reset() {
        BORROWS.reset();
        EXECUTES.reset();
        COMMITS.reset();
        SETTINGS.reset();
    }

    /** The counts per batch of {@code batch} rows, for a run of {@code rows} rows. */
    static String perBatch(int rows, int batch) {
        if (!ON) {
            return "statements not counted";
        }
        double batches = Math.max(1.0, rows / (double) batch);
        return String.format(
                Locale.ROOT,
                "per %d-row batch: %.2f statements, %.2f commits/rollbacks, %.2f isolation/autocommit calls, %.2f"
                        + " borrows",
                batch,
                EXECUTES.sum() / batches,
                COMMITS.sum() / batches,
                SETTINGS.sum() / batches,
                BORROWS.sum() / batches);
    }

    /** {@code pool}, counting. */
    static DataSource wrap(DataSource pool) {
        if (!ON) {
            return pool;
        }
        return proxy(DataSource.class, pool, (target, m, args) -> {
            Object r = m.invoke(target, args);
            if (m.getName().equals("getConnection")) {
                BORROWS.increment();
                return proxy(Connection.class, r, StatementCount::connection);
            }
            return r;
        });
    }

    private static Object connection(Object target, Method m, Object[] args) throws Exception {
        Object r = m.invoke(target, args);
        switch (m.getName()) {
            case "commit", "rollback" -> COMMITS.increment();
            case "setAutoCommit", "getTransactionIsolation", "setTransactionIsolation" -> SETTINGS.increment();
            case "prepareStatement", "createStatement", "prepareCall" -> {
                return proxy(m.getReturnType(), r, StatementCount::statement);
            }
            default -> {}
        }
        return r;
    }

    private static Object statement(Object target, Method m, Object[] args) throws Exception {
        if (m.getName().startsWith("execute")) {
            EXECUTES.increment();
        }
        return m.invoke(target, args);
    }

    @FunctionalInterface
    private interface Call {
        Object call(Object target, Method m, Object[] args) throws Exception;
    }

    /** A proxy of {@code type} over {@code target}; {@code unwrap} and {@code isWrapperFor} reach the target. */
    private static <T> T proxy(Class<T> type, Object target, Call call) {
        InvocationHandler h = (p, m, args) -> {
            try {
                return call.call(target, m, args);
            } catch (InvocationTargetException e) {
                throw e.getCause();
            }
        };
        return type.cast(Proxy.newProxyInstance(StatementCount.class.getClassLoader(), new Class<?>[] {type}, h));
    }
}
