package dev.baton.testservers;

import dev.baton.testservers.TestDatabases.Endpoint;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import org.testcontainers.DockerClientFactory;
import org.testcontainers.containers.MSSQLServerContainer;
import org.testcontainers.containers.MySQLContainer;
import org.testcontainers.containers.PostgreSQLContainer;
import org.testcontainers.utility.DockerImageName;

/**
 * The only class that touches Testcontainers, an optional dependency: it is loaded only after
 * {@link TestDatabases} found Testcontainers on the classpath. Containers are removed by Testcontainers' reaper
 * when the JVM exits. Images come from the variables {@link TestDatabases#CONTAINER_VARIABLES} names.
 */
final class TestcontainersSupport {
    /** The database the SQL Server container's tests use: RCSI cannot be set on {@code master}. */
    static final String SQLSERVER_DATABASE = "baton_test";

    private TestcontainersSupport() {}

    static boolean dockerAvailable() {
        return DockerClientFactory.instance().isDockerAvailable();
    }

    @SuppressWarnings("resource") // runs until the JVM exits
    static Endpoint startMySql(String image) {
        MySQLContainer<?> container = new MySQLContainer<>(DockerImageName.parse(image))
                .withDatabaseName("test")
                .withCommand("--max-connections=500");
        container.start();
        return new Endpoint(
                "mysql-testcontainers",
                container.getJdbcUrl(),
                container.getUsername(),
                container.getPassword(),
                "Testcontainers " + image);
    }

    /**
     * MariaDB through the MySQL container, which MariaDB images serve (they read the same {@code MYSQL_*}
     * variables); the URL is turned into a {@code jdbc:mariadb:} one for MariaDB Connector/J.
     */
    @SuppressWarnings("resource") // runs until the JVM exits
    static Endpoint startMariaDb(String image) {
        MySQLContainer<?> container = new MySQLContainer<>(
                        DockerImageName.parse(image).asCompatibleSubstituteFor("mysql"))
                .withDatabaseName("test")
                .withUsername("root")
                .withPassword("")
                .withCommand("--max-connections=500");
        container.start();
        return new Endpoint(
                "mariadb-testcontainers",
                container.getJdbcUrl().replaceFirst("^jdbc:mysql:", "jdbc:mariadb:"),
                "root",
                "",
                "Testcontainers " + image);
    }

    @SuppressWarnings("resource") // runs until the JVM exits
    static Endpoint startPostgres(String image) {
        PostgreSQLContainer<?> container = new PostgreSQLContainer<>(
                        DockerImageName.parse(image).asCompatibleSubstituteFor("postgres"))
                .withDatabaseName("test")
                .withCommand("postgres", "-c", "max_connections=300");
        container.start();
        return new Endpoint(
                "postgres-testcontainers",
                container.getJdbcUrl(),
                container.getUsername(),
                container.getPassword(),
                "Testcontainers " + image);
    }

    /**
     * SQL Server with a database of its own, {@link #SQLSERVER_DATABASE}, whose READ_COMMITTED_SNAPSHOT is set as
     * asked: on-premises databases default to OFF (shared locks for reads), Azure SQL to ON.
     */
    @SuppressWarnings("resource") // runs until the JVM exits
    static Endpoint startSqlServer(String image, boolean readCommittedSnapshot) {
        MSSQLServerContainer<?> container = new MSSQLServerContainer<>(
                        DockerImageName.parse(image).asCompatibleSubstituteFor("mcr.microsoft.com/mssql/server"))
                .acceptLicense();
        container.start();
        try (Connection c = DriverManager.getConnection(
                        container.getJdbcUrl(), container.getUsername(), container.getPassword());
                Statement s = c.createStatement()) {
            for (String sql : sqlServerSetup(readCommittedSnapshot)) {
                s.execute(sql);
            }
        } catch (SQLException e) {
            throw new IllegalStateException("could not create " + SQLSERVER_DATABASE + " on " + image, e);
        }
        return new Endpoint(
                "sqlserver-testcontainers",
                container.getJdbcUrl() + ";databaseName=" + SQLSERVER_DATABASE,
                container.getUsername(),
                container.getPassword(),
                "Testcontainers " + image + ", READ_COMMITTED_SNAPSHOT " + (readCommittedSnapshot ? "ON" : "OFF"));
    }

    /** The statements that create the SQL Server test database with READ_COMMITTED_SNAPSHOT on or off. */
    static java.util.List<String> sqlServerSetup(boolean readCommittedSnapshot) {
        return java.util.List.of(
                "CREATE DATABASE [" + SQLSERVER_DATABASE + "]",
                "ALTER DATABASE [" + SQLSERVER_DATABASE + "] SET READ_COMMITTED_SNAPSHOT "
                        + (readCommittedSnapshot ? "ON" : "OFF") + " WITH ROLLBACK IMMEDIATE");
    }
}
