package dev.baton.sqlserver;

import java.lang.reflect.InvocationHandler;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.function.Function;
import javax.sql.DataSource;

/**
 * A data source that records the SQL text Baton prepares, for exact-SQL tests of operations that have no {@code sql()}
 * method (sweeps, releases, reconciliation). It runs nothing: updates report {@code count} rows, queries (and the result set of a batch run by {@code execute}) return the
 * rows {@code rows} gives for their text (none by default). It pins text only; what SQL Server does with the text is
 * proven where a server runs the compatibility suites.
 */
final class SqlRecorder {
    /** Every text any recorder in this JVM received, for {@link SqlServerIndependentParseTest}. */
    static final java.util.Set<String> SEEN = java.util.concurrent.ConcurrentHashMap.newKeySet();

    final List<String> sql = Collections.synchronizedList(new ArrayList<>());
    /** The values bound to each recorded statement, by parameter index (1-based, index 0 unused). */
    final List<java.util.Map<Integer, Object>> binds = Collections.synchronizedList(new ArrayList<>());

    /** The isolation level of the connection when each recorded statement was prepared. */
    final List<Integer> levels = Collections.synchronizedList(new ArrayList<>());
    /** The level new connections start at, as a pool may hand them out. */
    volatile int poolLevel = Connection.TRANSACTION_READ_COMMITTED;

    /** The driver error an update of this text throws, or null (none). */
    volatile Function<String, java.sql.SQLException> failure = text -> null;

    /**
     * The columns {@code DatabaseMetaData.getColumns} reports for any table, by JDBC column label ({@code COLUMN_NAME},
     * {@code DATA_TYPE}, {@code TYPE_NAME}, {@code COLUMN_SIZE}, {@code NULLABLE}, {@code COLUMN_DEF}), as mssql-jdbc
     * reports them; the primary key is {@code id}. None by default: then there is no metadata.
     */
    volatile List<java.util.Map<String, Object>> columns = List.of();

    private final Function<String, List<Object[]>> rows;
    private final int count;

    SqlRecorder(int count, Function<String, List<Object[]>> rows) {
        this.count = count;
        this.rows = rows;
    }

    DataSource dataSource() {
        return proxy(DataSource.class, (p, m, a) -> switch (m.getName()) {
            case "getConnection" -> connection();
            case "toString" -> "SqlRecorder";
            default -> throw new UnsupportedOperationException(m.getName());
        });
    }

    /**
     * The values bound to the {@code i}-th statement recorded since the last {@link #take()}, in parameter order, as
     * text (a code binds as an int or a long depending on the path).
     */
    String bindsOf(int i) {
        return binds.get(i).values().toString();
    }

    /** Statements recorded so far, then forgets them. */
    List<String> take() {
        synchronized (sql) {
            List<String> out = List.copyOf(sql);
            sql.clear();
            binds.clear();
            levels.clear();
            return out;
        }
    }

    private Connection connection() {
        boolean[] autoCommit = {true};
        int[] isolation = {poolLevel};
        return proxy(Connection.class, (p, m, a) -> switch (m.getName()) {
            case "createStatement" -> plainStatement();
            case "prepareStatement" -> {
                levels.add(isolation[0]);
                yield statement((String) a[0]);
            }
            case "getAutoCommit" -> autoCommit[0];
            case "setAutoCommit" -> {
                autoCommit[0] = (Boolean) a[0];
                yield null;
            }
            case "getTransactionIsolation" -> isolation[0];
            case "setTransactionIsolation" -> {
                isolation[0] = (Integer) a[0];
                yield null;
            }
            case "isClosed" -> false;
            case "close", "commit", "rollback", "clearWarnings", "setReadOnly" -> null;
            case "unwrap" -> null;
            case "getMetaData" -> {
                if (columns.isEmpty()) {
                    throw new java.sql.SQLException("recording only: no metadata");
                }
                yield metaData();
            }
            case "getCatalog" -> "baton";
            case "getSchema" -> "dbo";
            case "isWrapperFor" -> false;
            // core keys per-connection facts (the isolation asked once) by the connection
            case "hashCode" -> System.identityHashCode(p);
            case "equals" -> p == a[0];
            default -> throw new UnsupportedOperationException("Connection." + m.getName());
        });
    }

    private PreparedStatement statement(String text) {
        java.util.Map<Integer, Object> bound = new java.util.TreeMap<>();
        int[] result = {0}; // of a batch run by execute(): its update count, then one result set
        synchronized (sql) {
            sql.add(text);
            binds.add(bound);
        }
        SEEN.add(text);
        return proxy(PreparedStatement.class, (p, m, a) -> switch (m.getName()) {
            case "executeUpdate" -> {
                java.sql.SQLException e = failure.apply(text);
                if (e != null) {
                    throw e;
                }
                yield count;
            }
            case "executeLargeUpdate" -> (long) count;
            case "executeQuery" -> {
                java.sql.SQLException e = failure.apply(text);
                if (e != null) {
                    throw e;
                }
                yield resultSet(rows.apply(text));
            }
            case "getGeneratedKeys" -> resultSet(rows.apply(text));
            case "executeBatch" -> new int[0];
            case "execute" -> {
                result[0] = 0;
                yield false;
            }
            case "getMoreResults" -> ++result[0] == 1;
            case "getResultSet" -> resultSet(rows.apply(text));
            case "getUpdateCount" -> result[0] == 0 ? count : -1;
            default -> {
                if (m.getName().startsWith("set") && a != null && a.length >= 2 && a[0] instanceof Integer i) {
                    bound.put(i, m.getName().equals("setNull") ? null : a[1]);
                    yield null;
                }
                if (m.getName().startsWith("set")
                        || m.getName().equals("close")
                        || m.getName().equals("addBatch")
                        || m.getName().equals("clearParameters")) {
                    yield null;
                }
                throw new UnsupportedOperationException("PreparedStatement." + m.getName());
            }
        });
    }

    /** A plain statement: its queries and batches are recorded and answered as prepared ones are. */
    private java.sql.Statement plainStatement() {
        String[] last = {""}; // the text of the last execute(), whose rows getResultSet() returns
        return proxy(java.sql.Statement.class, (p, m, a) -> switch (m.getName()) {
            case "executeQuery" -> {
                SEEN.add((String) a[0]);
                sql.add((String) a[0]);
                binds.add(new java.util.TreeMap<>());
                yield resultSet(rows.apply((String) a[0]));
            }
            case "execute" -> {
                SEEN.add((String) a[0]);
                sql.add((String) a[0]);
                binds.add(new java.util.TreeMap<>());
                last[0] = (String) a[0];
                yield !rows.apply(last[0]).isEmpty();
            }
            case "getResultSet" -> resultSet(rows.apply(last[0]));
            case "getMoreResults" -> false;
            case "getUpdateCount" -> -1;
            case "close" -> null;
            default -> throw new UnsupportedOperationException("Statement." + m.getName());
        });
    }

    private java.sql.DatabaseMetaData metaData() {
        return proxy(java.sql.DatabaseMetaData.class, (p, m, a) -> switch (m.getName()) {
            case "getColumns" -> namedResultSet(columns);
            case "getPrimaryKeys" -> namedResultSet(List.of(java.util.Map.of("COLUMN_NAME", "id")));
            case "getIndexInfo" -> namedResultSet(List.of());
            default -> throw new UnsupportedOperationException("DatabaseMetaData." + m.getName());
        });
    }

    private static ResultSet namedResultSet(List<java.util.Map<String, Object>> rows) {
        int[] at = {-1};
        return proxy(ResultSet.class, (p, m, a) -> switch (m.getName()) {
            case "next" -> ++at[0] < rows.size();
            case "getString" -> (String) rows.get(at[0]).get((String) a[0]);
            case "getInt" -> ((Number) rows.get(at[0]).getOrDefault((String) a[0], 0)).intValue();
            case "close" -> null;
            default -> throw new UnsupportedOperationException("ResultSet." + m.getName());
        });
    }

    private static ResultSet resultSet(List<Object[]> rows) {
        int[] at = {-1};
        return proxy(ResultSet.class, (p, m, a) -> switch (m.getName()) {
            case "next" -> ++at[0] < rows.size();
            case "getObject" -> rows.get(at[0])[(Integer) a[0] - 1];
            case "getLong" -> ((Number) rows.get(at[0])[(Integer) a[0] - 1]).longValue();
            case "getInt" -> ((Number) rows.get(at[0])[(Integer) a[0] - 1]).intValue();
            case "getString" -> String.valueOf(rows.get(at[0])[(Integer) a[0] - 1]);
            case "getBoolean" -> (Boolean) rows.get(at[0])[(Integer) a[0] - 1];
            case "wasNull" -> false;
            case "close" -> null;
            default -> throw new UnsupportedOperationException("ResultSet." + m.getName());
        });
    }

    @SuppressWarnings("unchecked")
    private static <T> T proxy(Class<T> type, InvocationHandler handler) {
        return (T) Proxy.newProxyInstance(SqlRecorder.class.getClassLoader(), new Class<?>[] {type}, handler);
    }
}
