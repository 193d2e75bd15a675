package dev.baton.bench;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * One database under test: its connection settings and one fixed-size HikariCP pool that every variant of every
 * workload shares (so Baton and hand-written JDBC see the same pool). Not thread-safe to open or close.
 */
public final class Target implements AutoCloseable {
    /** Database families the harness knows how to quiesce and describe. */
    public enum Kind {
        /** PostgreSQL. */
        POSTGRES,
        /** MariaDB or MySQL. */
        MARIADB
    }

    private static final Pattern HISTORY = Pattern.compile("History list length (\\d+)");

    private final String name;
    private final Kind kind;
    private final String url;
    private final String user;
    private final String password;
    private final int poolSize;
    private HikariDataSource pool;
    private final Map<String, String> settings = new LinkedHashMap<>();

    Target(String name, Kind kind, String url, String user, String password, int poolSize) {
        this.name = name;
        this.kind = kind;
        this.url = url;
        this.user = user;
        this.password = password;
        this.poolSize = poolSize;
    }

    /** The name used in reports: {@code postgres} or {@code mariadb}. */
    public String name() {
        return name;
    }

    /** The database family. */
    public Kind kind() {
        return kind;
    }

    /** The JDBC URL. */
    public String url() {
        return url;
    }

    /** The shared pool (autocommit on, fixed size). */
    /** The user of the connections. */
    public String user() {
        return user;
    }

    /** The password of the connections. */
    public String password() {
        return password;
    }

    public HikariDataSource pool() {
        return pool;
    }

    /**
     * A new pool with HikariCP's defaults (10 connections, the driver's isolation level), as a service configures
     * one from a URL; the caller closes it.
     */
    public HikariDataSource defaultPool() {
        HikariConfig c = new HikariConfig();
        c.setJdbcUrl(url);
        c.setUsername(user);
        c.setPassword(password);
        c.setPoolName("bench-default-" + name);
        return new HikariDataSource(c);
    }

    /** A new physical connection from the driver, outside every pool. */
    public java.sql.Connection connect() throws SQLException {
        return java.sql.DriverManager.getConnection(url, user, password);
    }

    /** Server version and durability settings, read when opened. */
    public Map<String, String> settings() {
        return settings;
    }

    /** Opens the pool and reads the server's settings; throws if the database does not answer. */
    void open() throws SQLException {
        HikariConfig c = new HikariConfig();
        c.setJdbcUrl(url);
        c.setUsername(user);
        c.setPassword(password);
        c.setMaximumPoolSize(poolSize);
        c.setMinimumIdle(poolSize); // fixed size: no connection is opened during a measurement
        c.setAutoCommit(true);
        // READ COMMITTED for every borrowed connection, as Baton's docs advise for pools: claims run at READ COMMITTED,
        // and a pool at MariaDB's default REPEATABLE READ would make every claim set and reset the isolation level
        c.setTransactionIsolation("TRANSACTION_READ_COMMITTED");
        c.setPoolName("bench-" + name);
        c.setInitializationFailTimeout(5_000);
        c.setConnectionTimeout(10_000);
        pool = new HikariDataSource(c);
        try (Connection conn = pool.getConnection();
                Statement st = conn.createStatement()) {
            if (kind == Kind.POSTGRES) {
                settings.put("version", one(st, "SELECT version()"));
                for (String s : new String[] {
                    "synchronous_commit", "fsync", "wal_sync_method", "shared_buffers", "max_connections"
                }) {
                    settings.put(s, one(st, "SHOW " + s));
                }
            } else {
                settings.put("version", one(st, "SELECT version()"));
                for (String s : new String[] {
                    "innodb_flush_log_at_trx_commit",
                    "innodb_buffer_pool_size",
                    "log_bin",
                    "max_connections",
                    "tx_isolation"
                }) {
                    settings.put(s, one(st, "SELECT @@" + s)); // tx_isolation: MariaDB < 11.1 and MySQL 8 know it
                }
            }
        }
        settings.put("pool", "HikariCP " + poolSize + " fixed connections, autocommit");
    }

    /**
     * Brings the server to a comparable state before a timed run: on PostgreSQL waits (at most 30 s) until no
     * autovacuum worker runs, then {@code VACUUM}s the given tables and issues a {@code CHECKPOINT} (so no checkpoint
     * is likely to start inside a short run); on MariaDB waits (at most 30 s) until the InnoDB purge has caught up
     * (history list below 5,000).
     *
     * @param tables tables to vacuum (PostgreSQL), already quoted if needed
     */
    public void quiesce(String... tables) throws SQLException, InterruptedException {
        try (Connection conn = pool.getConnection();
                Statement st = conn.createStatement()) {
            long deadline = System.nanoTime() + 30_000_000_000L;
            if (kind == Kind.POSTGRES) {
                while (System.nanoTime() < deadline
                        && Long.parseLong(one(
                                        st,
                                        "SELECT count(*) FROM pg_stat_activity WHERE backend_type = 'autovacuum worker'"
                                                + " AND datname = current_database()"))
                                > 0) {
                    Thread.sleep(100);
                }
                for (String t : tables) {
                    st.execute("VACUUM " + t);
                }
                st.execute("CHECKPOINT");
            } else {
                while (System.nanoTime() < deadline && historyLength(st) >= 5_000) {
                    Thread.sleep(100);
                }
            }
        }
    }

    private static long historyLength(Statement st) throws SQLException {
        try (ResultSet rs = st.executeQuery("SHOW ENGINE INNODB STATUS")) {
            if (rs.next()) {
                Matcher m = HISTORY.matcher(rs.getString("Status"));
                if (m.find()) {
                    return Long.parseLong(m.group(1));
                }
            }
        }
        return 0;
    }

    /** The first column of the first row of a query, as text. */
    public static String one(Statement st, String sql) throws SQLException {
        try (ResultSet rs = st.executeQuery(sql)) {
            return rs.next() ? rs.getString(1) : null;
        }
    }

    @Override
    public void close() {
        if (pool != null) {
            pool.close();
        }
    }

    @Override
    public String toString() {
        return name + " (" + url + ")";
    }
}
