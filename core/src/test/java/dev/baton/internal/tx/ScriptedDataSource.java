package dev.baton.internal.tx;

import dev.baton.spi.Diagnostics;
import dev.baton.spi.SqlError;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import javax.sql.DataSource;

/**
 * A data source with no server behind it whose connections log what the ground floor asks of them and fail where a
 * test says: a COMMIT whose reply is lost, a pooled connection to a server that turned read-only. Its {@link
 * #diagnostics()} classify by SQLState as the dialects do: 40001 transient, 40002 a write conflict, 08xxx a lost
 * connection, 25006 a read-only server, 23505 a unique violation.
 */
final class ScriptedDataSource {
    /** What every connection was asked, in order, prefixed with the connection's number ("c1 commit"). */
    final List<String> log = new ArrayList<>();
    /** Failures of the next COMMITs (by setAutoCommit(true) or commit()), one each, in order. */
    final Deque<SQLException> commitFailures = new ArrayDeque<>();
    /** How many connections handed out next answer that their server refuses writes. */
    int readOnlyConnections;

    private int borrowed;
    private final DataSource dataSource;

    ScriptedDataSource() {
        InvocationHandler h = (proxy, method, args) -> switch (method.getName()) {
            case "getConnection" -> connection(++borrowed, readOnlyConnections-- > 0);
            case "toString" -> "scripted data source";
            default -> throw new UnsupportedOperationException(method.getName());
        };
        dataSource = (DataSource)
                Proxy.newProxyInstance(ScriptedDataSource.class.getClassLoader(), new Class<?>[] {DataSource.class}, h);
    }

    DataSource dataSource() {
        return dataSource;
    }

    static SQLException failure(String sqlState) {
        return new SQLException("scripted failure " + sqlState, sqlState);
    }

    Diagnostics diagnostics() {
        return new Diagnostics() {
            @Override
            public SqlError classify(SQLException e) {
                String state = e.getSQLState() == null ? "" : e.getSQLState();
                if (state.equals("40001")) {
                    return SqlError.TRANSIENT;
                }
                if (state.equals("40002")) {
                    return SqlError.CONFLICT;
                }
                if (state.startsWith("08")) {
                    return SqlError.CONNECTION_LOST;
                }
                if (state.equals("25006")) {
                    return SqlError.READ_ONLY;
                }
                if (state.equals("23505")) {
                    return SqlError.uniqueViolation("scripted");
                }
                return SqlError.OTHER;
            }

            @Override
            public boolean refusesWrites(Connection c) throws SQLException {
                log.add(name(c) + " asked read-only");
                return c.isReadOnly();
            }
        };
    }

    static String name(Connection c) {
        return c.toString();
    }

    private Connection connection(int n, boolean readOnly) {
        String name = "c" + n;
        boolean[] autoCommit = {true};
        boolean[] closed = {false};
        boolean[] inTransaction = {false};
        int[] isolation = {Connection.TRANSACTION_REPEATABLE_READ};
        log.add(name + " borrowed");
        InvocationHandler h = (proxy, method, args) -> {
            switch (method.getName()) {
                case "toString":
                    return name;
                case "hashCode":
                    return System.identityHashCode(proxy);
                case "equals":
                    return proxy == args[0];
                case "unwrap":
                    return proxy;
                case "isReadOnly":
                    return readOnly;
                case "getAutoCommit":
                    return autoCommit[0];
                case "setAutoCommit": {
                    boolean on = (Boolean) args[0];
                    if (on && !autoCommit[0]) {
                        autoCommit[0] = true;
                        if (inTransaction[0]) {
                            inTransaction[0] = false;
                            log.add(name + " commit (autocommit on)");
                            failCommit(name);
                        } else {
                            log.add(name + " autocommit on");
                        }
                    } else if (!on && autoCommit[0]) {
                        log.add(name + " begin");
                        autoCommit[0] = false;
                        inTransaction[0] = true;
                    }
                    return null;
                }
                case "commit":
                    inTransaction[0] = false;
                    log.add(name + " commit");
                    failCommit(name);
                    return null;
                case "rollback":
                    inTransaction[0] = false;
                    log.add(name + " rollback");
                    return null;
                case "getTransactionIsolation":
                    return isolation[0];
                case "setTransactionIsolation":
                    log.add(name + " isolation " + args[0]);
                    isolation[0] = (Integer) args[0];
                    return null;
                case "createStatement":
                    return statement(name);
                case "abort":
                    log.add(name + " abort");
                    closed[0] = true;
                    return null;
                case "close":
                    if (!closed[0]) {
                        log.add(name + " close");
                    }
                    closed[0] = true;
                    return null;
                case "isClosed":
                    return closed[0];
                default:
                    throw new UnsupportedOperationException(method.getName());
            }
        };
        return (Connection)
                Proxy.newProxyInstance(ScriptedDataSource.class.getClassLoader(), new Class<?>[] {Connection.class}, h);
    }

    private void failCommit(String name) throws SQLException {
        SQLException e = commitFailures.poll();
        if (e != null) {
            log.add(name + " commit failed " + e.getSQLState());
            throw e;
        }
    }

    private Statement statement(String name) {
        InvocationHandler h = (proxy, method, args) -> switch (method.getName()) {
            case "execute" -> {
                log.add(name + " execute " + args[0]);
                yield false;
            }
            case "close" -> null;
            case "toString" -> name + " statement";
            default -> throw new UnsupportedOperationException(method.getName());
        };
        return (Statement)
                Proxy.newProxyInstance(ScriptedDataSource.class.getClassLoader(), new Class<?>[] {Statement.class}, h);
    }
}
