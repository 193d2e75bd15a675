package dev.baton.testkit.faults;

import dev.baton.testservers.ConnectionSource;
import dev.baton.testservers.DatabaseKind;
import dev.baton.testservers.TestDatabase;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.sql.CallableStatement;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * A data source over a real server that injects one {@link Fault} at a chosen JDBC step and records every step (SQL
 * text, kind, connection, outcome). Each {@link #getConnection()} opens a new physical connection (no pool), so a
 * fault that closes a connection never leaks into a later operation. Thread-safe: the log and the fault's counter are
 * shared by all connections.
 *
 * <pre>{@code
 * FaultyDataSource faults = new FaultyDataSource(TestDatabases.postgresLocal());
 * Baton baton = Baton.builder(faults).dialect(dialect).build();
 * faults.arm(Fault.atStep(FaultPoint.LOST_REPLY, 1));
 * TransitionResult<Payment> r = orders.transition(1, Payment.PENDING, Payment.PAID).apply();
 * faults.disarm();
 * faults.steps().forEach(System.out::println);
 * }</pre>
 *
 * <p>Steps are the calls that reach the server with a request: {@code executeQuery}, {@code executeUpdate},
 * {@code executeBatch}, {@code execute}, {@code commit()} and {@code setAutoCommit(true)} while a transaction is open
 * (JDBC commits it then). Rollbacks are recorded but never counted or faulted. Session setup (autocommit, isolation,
 * savepoints, metadata) is not recorded.
 */
public final class FaultyDataSource implements ConnectionSource {
    private static final String LOST = "08006";

    private final TestDatabase db;
    private final Object lock = new Object();
    private final List<Step> steps = new ArrayList<>();
    private Fault fault;
    private int counted;
    private int kindCounted;
    private Step fired;
    private int connections;

    /**
     * Injects faults into connections to {@code db}, opened with {@link TestDatabase#connect()}. Starts disarmed.
     *
     * @param db the server; its kind decides how {@link FaultPoint#KILL_BACKEND} finds and ends a session
     */
    public FaultyDataSource(TestDatabase db) {
        this.db = Objects.requireNonNull(db, "db");
    }

    /**
     * Arms {@code fault} (or, with null, only records) and clears the log and the step counter: the fault's index
     * counts from the next step.
     *
     * @param fault the fault, or null to record without faults
     */
    public void arm(Fault fault) {
        synchronized (lock) {
            this.fault = fault;
            counted = 0;
            kindCounted = 0;
            fired = null;
            steps.clear();
        }
    }

    /** Stops injecting; the log is kept until the next {@link #arm(Fault)}. */
    public void disarm() {
        synchronized (lock) {
            fault = null;
        }
    }

    /**
     * Every step since the last {@link #arm(Fault)}, in order.
     *
     * @return a copy of the log
     */
    public List<Step> steps() {
        synchronized (lock) {
            return List.copyOf(steps);
        }
    }

    /**
     * Faultable steps since the last {@link #arm(Fault)}.
     *
     * @return their number
     */
    public int stepCount() {
        synchronized (lock) {
            return counted;
        }
    }

    /**
     * The step the armed fault hit, if it fired.
     *
     * @return the step, or empty when the fault has not (yet) matched a step
     */
    public Optional<Step> fired() {
        synchronized (lock) {
            return Optional.ofNullable(fired);
        }
    }

    /**
     * The log as text, one step a line, for assertion messages.
     *
     * @return the steps
     */
    public String describe() {
        StringBuilder out = new StringBuilder();
        for (Step s : steps()) {
            out.append("\n  ").append(s);
        }
        return out.toString();
    }

    @Override
    public Connection getConnection() throws SQLException {
        Connection physical = db.connect();
        long session;
        try (Statement s = physical.createStatement();
                ResultSet rs = s.executeQuery(
                        switch (db.kind()) {
                            case POSTGRES -> "SELECT pg_backend_pid()";
                            case MARIADB, MYSQL -> "SELECT CONNECTION_ID()";
                            case SQLSERVER -> "SELECT @@SPID";
                        })) {
            rs.next();
            session = rs.getLong(1);
        } catch (SQLException | RuntimeException e) {
            physical.close();
            throw e;
        }
        int number;
        synchronized (lock) {
            number = ++connections;
        }
        Session state = new Session(physical, session, number);
        return (Connection) Proxy.newProxyInstance(
                Connection.class.getClassLoader(),
                new Class<?>[] {Connection.class},
                (proxy, method, args) -> state.onConnection(proxy, method, args));
    }

    /** Decides, under the lock, whether this step is the armed fault's, and records it as started. */
    private Fault match(StepKind kind, String sql) {
        synchronized (lock) {
            counted++;
            if (fault == null || fired != null) {
                return null;
            }
            Fault f = fault;
            if (f.kind() == null || f.kind() == kind) {
                kindCounted++;
            }
            boolean hit = f.sql() != null
                    ? f.sql().test(sql)
                    : (f.kind() == null || f.kind() == kind) && kindCounted == f.nth();
            return hit ? f : null;
        }
    }

    private int record(int index, StepKind kind, String sql, int connection, String outcome) {
        synchronized (lock) {
            Step s = new Step(index, kind, sql, connection, outcome);
            steps.add(s);
            if (outcome.startsWith("injected") && fired == null) {
                fired = s;
            }
            return index;
        }
    }

    private int currentIndex() {
        synchronized (lock) {
            return counted;
        }
    }

    private void kill(long session) throws SQLException {
        try (Connection admin = db.connect();
                Statement s = admin.createStatement()) {
            String alive;
            if (db.kind() == DatabaseKind.POSTGRES) {
                s.executeQuery("SELECT pg_terminate_backend(" + session + ")").close();
                alive = "SELECT 1 FROM pg_stat_activity WHERE pid = " + session;
            } else if (db.kind() == DatabaseKind.SQLSERVER) {
                s.execute("KILL " + session);
                alive = "SELECT 1 FROM sys.dm_exec_sessions WHERE session_id = " + session;
            } else {
                s.execute("KILL CONNECTION " + session);
                alive = "SELECT 1 FROM information_schema.PROCESSLIST WHERE ID = " + session;
            }
            // the server ends the session asynchronously; wait until it no longer lists it
            for (int i = 0; i < 200; i++) {
                try (ResultSet rs = s.executeQuery(alive)) {
                    if (!rs.next()) {
                        return;
                    }
                }
                sleep(10);
            }
        }
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static SQLException lost(Fault f, String what) {
        return new SQLException("injected by FaultyDataSource: " + f.point() + " (" + what + ")", LOST);
    }

    private static String describe(Object result) {
        if (result instanceof Integer n) {
            return "ok: " + n + " rows";
        }
        if (result instanceof Long n) {
            return "ok: " + n + " rows";
        }
        if (result instanceof int[] n) {
            return "ok: batch of " + n.length;
        }
        return "ok";
    }

    private static StepKind kindOf(String method) {
        return switch (method) {
            case "executeQuery" -> StepKind.QUERY;
            case "executeUpdate", "executeLargeUpdate" -> StepKind.UPDATE;
            case "executeBatch", "executeLargeBatch" -> StepKind.BATCH;
            case "execute" -> StepKind.EXECUTE;
            default -> null;
        };
    }

    /** One physical connection and the statements made on it. */
    private final class Session {
        private final Connection physical;
        private final long session;
        private final int number;

        Session(Connection physical, long session, int number) {
            this.physical = physical;
            this.session = session;
            this.number = number;
        }

        Object onConnection(Object proxy, Method method, Object[] args) throws Throwable {
            switch (method.getName()) {
                case "commit":
                    return step(StepKind.COMMIT, "COMMIT", () -> invoke(physical, method, args));
                case "setAutoCommit":
                    if ((Boolean) args[0] && !physical.getAutoCommit()) {
                        return step(
                                StepKind.COMMIT, "COMMIT (setAutoCommit(true))", () -> invoke(physical, method, args));
                    }
                    return invoke(physical, method, args);
                case "rollback":
                    try {
                        Object r = invoke(physical, method, args);
                        record(0, StepKind.ROLLBACK, "ROLLBACK", number, "ok");
                        return r;
                    } catch (SQLException e) {
                        record(0, StepKind.ROLLBACK, "ROLLBACK", number, failed(e));
                        throw e;
                    }
                case "createStatement":
                    return statement(Statement.class, (Statement) invoke(physical, method, args), null);
                case "prepareStatement":
                    return statement(
                            PreparedStatement.class, (Statement) invoke(physical, method, args), (String) args[0]);
                case "prepareCall":
                    return statement(
                            CallableStatement.class, (Statement) invoke(physical, method, args), (String) args[0]);
                case "unwrap":
                    return ((Class<?>) args[0]).isInstance(proxy) ? proxy : invoke(physical, method, args);
                case "isWrapperFor":
                    return ((Class<?>) args[0]).isInstance(proxy) || (Boolean) invoke(physical, method, args);
                case "equals":
                    return proxy == args[0];
                case "hashCode":
                    return System.identityHashCode(proxy);
                case "toString":
                    return "FaultyConnection#" + number + "(" + physical + ")";
                default:
                    return invoke(physical, method, args);
            }
        }

        private Object statement(Class<? extends Statement> type, Statement real, String preparedSql) {
            List<String> batch = new ArrayList<>();
            InvocationHandler h = (proxy, method, args) -> {
                String name = method.getName();
                if (name.equals("addBatch") && args != null && args.length == 1) {
                    batch.add((String) args[0]);
                }
                if (name.equals("clearBatch")) {
                    batch.clear();
                }
                StepKind kind = kindOf(name);
                if (kind != null) {
                    String sql = args != null && args.length > 0 && args[0] instanceof String s
                            ? s
                            : preparedSql != null ? preparedSql : String.join("; ", batch);
                    return step(kind, sql, () -> invoke(real, method, args));
                }
                switch (name) {
                    case "getConnection":
                        return invoke(real, method, args); // the physical one; Baton never asks
                    case "equals":
                        return proxy == args[0];
                    case "hashCode":
                        return System.identityHashCode(proxy);
                    case "toString":
                        return "FaultyStatement(" + (preparedSql != null ? preparedSql : "") + ")";
                    default:
                        return invoke(real, method, args);
                }
            };
            return Proxy.newProxyInstance(Statement.class.getClassLoader(), new Class<?>[] {type}, h);
        }

        private Object step(StepKind kind, String sql, Call call) throws Throwable {
            Fault f = match(kind, sql);
            int index = currentIndex();
            if (f == null) {
                return run(index, kind, sql, call, "");
            }
            switch (f.point()) {
                case FAIL_BEFORE -> {
                    physical.close();
                    record(index, kind, sql, number, "injected FAIL_BEFORE: not sent, connection closed");
                    throw lost(f, "not sent");
                }
                case LOST_REPLY -> {
                    Object result;
                    try {
                        result = call.run();
                    } catch (SQLException e) {
                        record(index, kind, sql, number, "injected LOST_REPLY, but the step itself " + failed(e));
                        throw e;
                    }
                    physical.close();
                    record(index, kind, sql, number, "injected LOST_REPLY: ran (" + describe(result) + "), reply lost");
                    throw lost(f, "ran on the server, reply lost");
                }
                case KILL_BACKEND -> {
                    kill(session);
                    return run(index, kind, sql, call, "injected KILL_BACKEND of session " + session + " before, ");
                }
                case DELAY -> {
                    sleep(f.delayMillis());
                    return run(index, kind, sql, call, "injected DELAY " + f.delayMillis() + " ms, then ");
                }
                default -> throw new IllegalStateException(f.point().toString());
            }
        }

        private Object run(int index, StepKind kind, String sql, Call call, String prefix) throws Throwable {
            try {
                Object result = call.run();
                record(index, kind, sql, number, prefix + describe(result));
                return result;
            } catch (SQLException e) {
                record(index, kind, sql, number, prefix + failed(e));
                throw e;
            }
        }

        private String failed(SQLException e) {
            return "failed " + e.getSQLState() + ": " + e.getMessage();
        }
    }

    @FunctionalInterface
    private interface Call {
        Object run() throws Throwable;
    }

    private static Object invoke(Object target, Method method, Object[] args) throws Throwable {
        try {
            return method.invoke(target, args);
        } catch (InvocationTargetException e) {
            throw e.getCause();
        }
    }
}
