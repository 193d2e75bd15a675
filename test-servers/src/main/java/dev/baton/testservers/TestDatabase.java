package dev.baton.testservers;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.Objects;
import java.util.Properties;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Pattern;
import javax.sql.DataSource;

/**
 * One reachable database server for tests. Thread-safe; shared per JVM.
 *
 * <p>Instances come from {@link TestDatabases}; each factory there returns the same instance for the whole
 * JVM. Every test class should work in its own tables (see {@link TestDatabases#uniqueName(String)}) so that
 * classes can run in parallel against the same server.
 */
public final class TestDatabase {
    private static final Pattern TABLE_NAME = Pattern.compile("^[A-Za-z_][A-Za-z0-9_]*(\\.[A-Za-z_][A-Za-z0-9_]*)?$");
    private static final AtomicInteger POOL_COUNTER = new AtomicInteger();

    private final String name;
    private final DatabaseKind kind;
    private final String jdbcUrl;
    private final String user;
    private final String password;
    private final String serverVersion;
    private final int majorVersion;
    private final Object poolLock = new Object();
    private volatile HikariDataSource sharedPool;
    private volatile HikariDataSource executePool;

    TestDatabase(
            String name,
            DatabaseKind kind,
            String jdbcUrl,
            String user,
            String password,
            String serverVersion,
            int majorVersion) {
        this.name = Objects.requireNonNull(name, "name");
        this.kind = Objects.requireNonNull(kind, "kind");
        this.jdbcUrl = Objects.requireNonNull(jdbcUrl, "jdbcUrl");
        this.user = user;
        this.password = password;
        this.serverVersion = Objects.requireNonNull(serverVersion, "serverVersion");
        this.majorVersion = majorVersion;
    }

    /**
     * A short label that tells where this server comes from, such as {@code postgres-local},
     * {@code postgres-embedded}, {@code mariadb-local}, {@code mariadb-embedded}, {@code mysql-testcontainers} or
     * {@code sqlserver-env}. Useful as a display name in parameterized tests.
     *
     * @return the label
     */
    public String name() {
        return name;
    }

    /**
     * The product of this server.
     *
     * @return the kind
     */
    public DatabaseKind kind() {
        return kind;
    }

    /**
     * The JDBC URL, without credentials; reachable over TCP, so other JVM processes on this machine can use it.
     *
     * @return the URL
     */
    public String jdbcUrl() {
        return jdbcUrl;
    }

    /**
     * The user name to connect with.
     *
     * @return the user, or {@code null} when the URL carries it
     */
    public String user() {
        return user;
    }

    /**
     * The password to connect with.
     *
     * @return the password, possibly empty, or {@code null} when the URL carries it or none is needed
     */
    public String password() {
        return password;
    }

    /**
     * The server's version as the driver reports it ({@code DatabaseMetaData.getDatabaseProductVersion()}).
     *
     * @return the version text, such as {@code 18.1} or {@code 11.4.5-MariaDB}
     */
    public String serverVersion() {
        return serverVersion;
    }

    /**
     * The server's major version ({@code DatabaseMetaData.getDatabaseMajorVersion()}).
     *
     * @return the major version, such as 18 for PostgreSQL 18.1 or 11 for MariaDB 11.4
     */
    public int majorVersion() {
        return majorVersion;
    }

    /**
     * The pool shared by every user of this server in this JVM: HikariCP with at most 64 connections, no idle
     * minimum, a 30 second connection timeout, and auto-commit on. Do not close it.
     *
     * @return the shared pool, created on first use
     */
    public DataSource dataSource() {
        HikariDataSource pool = sharedPool;
        if (pool == null) {
            synchronized (poolLock) {
                pool = sharedPool;
                if (pool == null) {
                    pool = createPool(64, "shared");
                    sharedPool = pool;
                }
            }
        }
        return pool;
    }

    /**
     * A new pool of its own (same settings as {@link #dataSource()} but the size), for tests that need to control
     * or exhaust a pool. The caller closes it.
     *
     * @param maxPoolSize the maximum number of connections, at least 1
     * @return a new pool
     */
    public HikariDataSource newDataSource(int maxPoolSize) {
        if (maxPoolSize < 1) {
            throw new IllegalArgumentException("maxPoolSize must be at least 1: " + maxPoolSize);
        }
        return createPool(maxPoolSize, "pool");
    }

    /**
     * Opens a new connection outside any pool ({@link DriverManager}), in auto-commit mode. The caller closes it.
     *
     * @return a new connection
     * @throws SQLException when the server refuses it
     */
    public Connection connect() throws SQLException {
        return DriverManager.getConnection(jdbcUrl, credentials());
    }

    /**
     * Runs statements (DDL or DML) in order, in auto-commit mode, on a connection of a small pool of this server's
     * own (opening a PostgreSQL backend per call cost the suites minutes); when the connection turns out to be dead
     * before the first statement ran (a test killed it, or the server restarted), on a fresh one instead. Never leaves
     * session state behind: the statements run in auto-commit mode, and none of the tests sets a session variable
     * through here.
     *
     * @param sql the statements, one per argument
     * @throws UncheckedSQLException when a statement fails; its message names this server and the statement
     */
    public void execute(String... sql) {
        Objects.requireNonNull(sql, "sql");
        Connection pooled;
        try {
            pooled = executePool().getConnection();
        } catch (SQLException e) {
            throw new UncheckedSQLException("cannot connect to " + this + ": " + e.getMessage(), null, e);
        }
        if (!run(pooled, sql, true)) {
            Connection fresh;
            try {
                fresh = connect();
            } catch (SQLException e) {
                throw new UncheckedSQLException("cannot connect to " + this + ": " + e.getMessage(), null, e);
            }
            run(fresh, sql, false);
        }
    }

    /** Runs the statements and closes the connection; false when it was dead before the first one ran. */
    private boolean run(Connection connection, String[] sql, boolean mayBeDead) {
        try (connection;
                Statement statement = connection.createStatement()) {
            for (int i = 0; i < sql.length; i++) {
                try {
                    statement.execute(sql[i]);
                } catch (SQLException e) {
                    if (mayBeDead && i == 0 && connectionLost(e)) {
                        connection.abort(Runnable::run); // the pool drops it
                        return false;
                    }
                    throw new UncheckedSQLException(
                            "statement failed on " + name + ": " + sql[i] + " -> " + e.getMessage(), sql[i], e);
                }
            }
            return true;
        } catch (SQLException e) {
            throw new UncheckedSQLException("closing a connection to " + name + " failed: " + e.getMessage(), null, e);
        }
    }

    private static boolean connectionLost(SQLException e) {
        String state = e.getSQLState();
        return e instanceof java.sql.SQLNonTransientConnectionException
                || e instanceof java.sql.SQLRecoverableException
                || state != null && (state.startsWith("08") || state.startsWith("57P"));
    }

    private HikariDataSource executePool() {
        HikariDataSource pool = executePool;
        if (pool == null) {
            synchronized (poolLock) {
                pool = executePool;
                if (pool == null) {
                    pool = createPool(4, "execute");
                    executePool = pool;
                }
            }
        }
        return pool;
    }

    /**
     * Drops a table if it exists ({@code DROP TABLE IF EXISTS}, understood by every supported database).
     *
     * @param table an unquoted table name, optionally qualified by a schema ({@code schema.table})
     * @throws IllegalArgumentException when the name is not a plain identifier
     * @throws UncheckedSQLException when the statement fails
     */
    public void dropTableIfExists(String table) {
        Objects.requireNonNull(table, "table");
        if (!TABLE_NAME.matcher(table).matches()) {
            throw new IllegalArgumentException("not a plain table name: " + table);
        }
        execute("DROP TABLE IF EXISTS " + table);
    }

    /**
     * Describes this server without its password.
     *
     * @return name, kind, version and URL
     */
    @Override
    public String toString() {
        return name + " (" + kind + " " + serverVersion + " at " + jdbcUrl + ")";
    }

    Properties credentials() {
        Properties properties = new Properties();
        if (user != null) {
            properties.setProperty("user", user);
        }
        if (password != null) {
            properties.setProperty("password", password);
        }
        return properties;
    }

    private HikariDataSource createPool(int maxPoolSize, String purpose) {
        HikariConfig config = new HikariConfig();
        config.setPoolName("baton-test-" + name + "-" + purpose + "-" + POOL_COUNTER.incrementAndGet());
        config.setJdbcUrl(jdbcUrl);
        if (user != null) {
            config.setUsername(user);
        }
        if (password != null) {
            config.setPassword(password);
        }
        config.setMaximumPoolSize(maxPoolSize);
        config.setMinimumIdle(0);
        config.setConnectionTimeout(Duration.ofSeconds(30).toMillis());
        config.setAutoCommit(true);
        return new HikariDataSource(config);
    }
}
