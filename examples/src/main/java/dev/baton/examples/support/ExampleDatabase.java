package dev.baton.examples.support;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.baton.testservers.TestDatabase;
import dev.baton.testservers.TestDatabases;
import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * The database an example program or the demo runs on: a server named by a JDBC URL, or else the embedded PostgreSQL
 * of the test servers ({@link TestDatabases#postgresEmbedded()}: started by this JVM on a free TCP port of localhost,
 * so that other processes can connect, and stopped when the JVM exits). Closing it closes the pools it made.
 */
public final class ExampleDatabase implements AutoCloseable {
    private final String jdbcUrl;
    private final String user;
    private final String password;
    private final boolean embedded;
    private final String description;
    private final DatabaseKind kind;
    private final List<HikariDataSource> pools = new ArrayList<>();

    private ExampleDatabase(String jdbcUrl, String user, String password, boolean embedded) throws SQLException {
        this.jdbcUrl = jdbcUrl;
        this.user = user;
        this.password = password;
        this.embedded = embedded;
        try (HikariDataSource probe = newPool("probe", 1);
                Connection c = probe.getConnection()) {
            DatabaseMetaData md = c.getMetaData();
            this.kind = DatabaseKind.of(md);
            String product = kind == DatabaseKind.POSTGRES ? "PostgreSQL" : md.getDatabaseProductName();
            String version = md.getDatabaseProductVersion().split(" ")[0].replaceFirst("-.*$", "");
            this.description =
                    product + " " + version + (embedded ? " (embedded, started by this JVM at " + jdbcUrl + ")" : "");
        }
    }

    /**
     * Connects to the server at {@code jdbcUrl}, or starts an embedded PostgreSQL when it is null.
     *
     * @throws IllegalStateException if the server cannot be reached or started
     */
    public static ExampleDatabase open(String jdbcUrl, String user, String password) {
        try {
            if (jdbcUrl != null) {
                return new ExampleDatabase(jdbcUrl, user, password, false);
            }
            TestDatabase pg;
            try {
                pg = TestDatabases.postgresEmbedded();
            } catch (AssertionError e) { // how the test servers report a server that did not start
                throw new IllegalStateException(e.getMessage(), e);
            }
            return new ExampleDatabase(pg.jdbcUrl(), pg.user(), pg.password(), true);
        } catch (SQLException e) {
            throw new IllegalStateException("cannot connect to " + jdbcUrl + ": " + e.getMessage(), e);
        }
    }

    /** A new connection pool of at most {@code size} connections; closed with this database. */
    public synchronized HikariDataSource pool(String name, int size) {
        HikariDataSource ds = newPool(name, size);
        pools.add(ds);
        return ds;
    }

    private HikariDataSource newPool(String name, int size) {
        HikariConfig config = new HikariConfig();
        config.setPoolName("example-" + name);
        config.setJdbcUrl(jdbcUrl);
        if (user != null) {
            config.setUsername(user);
        }
        if (password != null) {
            config.setPassword(password);
        }
        config.setMaximumPoolSize(size);
        config.setMinimumIdle(0);
        config.setConnectionTimeout(Duration.ofSeconds(30).toMillis());
        return new HikariDataSource(config);
    }

    /** The JDBC URL (reachable over TCP by other processes on this machine). */
    public String jdbcUrl() {
        return jdbcUrl;
    }

    /** The user, or null. */
    public String user() {
        return user;
    }

    /** The password, or null. */
    public String password() {
        return password;
    }

    /** Whether this JVM started the server. */
    public boolean embedded() {
        return embedded;
    }

    /** The kind of database. */
    public DatabaseKind kind() {
        return kind;
    }

    /** Product, version and origin, for reports. */
    public String description() {
        return description;
    }

    /** Closes the pools; an embedded server stops when the JVM exits. */
    @Override
    public synchronized void close() {
        for (HikariDataSource ds : pools) {
            ds.close();
        }
        pools.clear();
    }
}
