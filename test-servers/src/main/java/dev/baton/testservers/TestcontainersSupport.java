package dev.baton.testservers;

import dev.baton.testservers.TestDatabases.Endpoint;
import org.testcontainers.DockerClientFactory;
import org.testcontainers.containers.MSSQLServerContainer;
import org.testcontainers.containers.MySQLContainer;
import org.testcontainers.utility.DockerImageName;

/**
 * The only class that touches Testcontainers, an optional dependency: it is loaded only after
 * {@link TestDatabases} found Testcontainers on the classpath. Containers are removed by Testcontainers' reaper
 * when the JVM exits.
 */
final class TestcontainersSupport {
    static final String MYSQL_IMAGE = TestDatabases.MYSQL_IMAGE;
    static final String SQLSERVER_IMAGE = TestDatabases.SQLSERVER_IMAGE;

    private TestcontainersSupport() {}

    static boolean dockerAvailable() {
        return DockerClientFactory.instance().isDockerAvailable();
    }

    @SuppressWarnings("resource") // runs until the JVM exits
    static Endpoint startMySql() {
        MySQLContainer<?> container = new MySQLContainer<>(DockerImageName.parse(MYSQL_IMAGE))
                .withDatabaseName("test")
                .withCommand("--max-connections=500");
        container.start();
        return new Endpoint(
                "mysql-testcontainers",
                container.getJdbcUrl(),
                container.getUsername(),
                container.getPassword(),
                "Testcontainers " + MYSQL_IMAGE);
    }

    @SuppressWarnings("resource") // runs until the JVM exits
    static Endpoint startSqlServer() {
        MSSQLServerContainer<?> container =
                new MSSQLServerContainer<>(DockerImageName.parse(SQLSERVER_IMAGE)).acceptLicense();
        container.start();
        return new Endpoint(
                "sqlserver-testcontainers",
                container.getJdbcUrl(),
                container.getUsername(),
                container.getPassword(),
                "Testcontainers " + SQLSERVER_IMAGE);
    }
}
