package dev.baton.testservers;

import java.util.function.Supplier;

/**
 * Every server the tests know, as one value each: the parameter of a test that runs on several servers. Resolving
 * one ({@link #get()}) returns a reachable {@link TestDatabase}, or fails or skips the calling test with the reason
 * (see {@link TestDatabases} for where each comes from and what its absence means).
 *
 * <pre>
 * &#64;ParameterizedClass(name = "{0}")
 * &#64;EnumSource(value = TestServer.class, names = {"POSTGRES_LOCAL", "POSTGRES_EMBEDDED"})
 * class SomeTest {
 *     &#64;Parameter TestServer server;
 *     ...
 * }</pre>
 *
 * <p>(The compatibility suites name theirs with the test kit's {@code CompatibilityServers} and {@code RunsOn}.)
 */
public enum TestServer implements Supplier<TestDatabase> {
    /** {@link TestDatabases#postgresLocal()}. */
    POSTGRES_LOCAL("postgres-local", DatabaseKind.POSTGRES),
    /** {@link TestDatabases#postgresEmbedded()}. */
    POSTGRES_EMBEDDED("postgres-embedded", DatabaseKind.POSTGRES),
    /** {@link TestDatabases#mariadbLocal()}. */
    MARIADB_LOCAL("mariadb-local", DatabaseKind.MARIADB),
    /** {@link TestDatabases#mariadbEmbedded()}. */
    MARIADB_EMBEDDED("mariadb-embedded", DatabaseKind.MARIADB),
    /** {@link TestDatabases#mariadbLocal()} through MySQL Connector/J ({@link TestDatabases#viaConnectorJ}). */
    MARIADB_LOCAL_CONNECTORJ("mariadb-local-connectorj", DatabaseKind.MARIADB),
    /**
     * {@link TestDatabases#mariadbEmbedded()} through MySQL Connector/J with {@code rewriteBatchedStatements=true}
     * ({@link TestDatabases#viaConnectorJ}).
     */
    MARIADB_EMBEDDED_CONNECTORJ("mariadb-embedded-connectorj", DatabaseKind.MARIADB),
    /**
     * {@link TestDatabases#postgresStreaming(PostgresCluster.Replication)} with an asynchronous standby: the writer of a
     * PostgreSQL primary and streaming standby, through a multi-host URL.
     */
    POSTGRES_STREAMING_ASYNC("postgres-streaming-async", DatabaseKind.POSTGRES),
    /** The same with a synchronous standby ({@code synchronous_commit = on}). */
    POSTGRES_STREAMING_SYNC("postgres-streaming-sync", DatabaseKind.POSTGRES),
    /**
     * {@link TestDatabases#mariadbGalera()}: a three-node MariaDB Galera cluster, written through node 1.
     */
    MARIADB_GALERA("mariadb-galera", DatabaseKind.MARIADB),
    /**
     * {@link TestDatabases#mariadbGaleraSpread()}: the same cluster, each connection on a node picked at random, so
     * that writes run on all three nodes at once and conflict at certification.
     */
    MARIADB_GALERA_SPREAD("mariadb-galera-spread", DatabaseKind.MARIADB),
    /** {@link TestDatabases#postgresPgBouncer()}: the local PostgreSQL behind PgBouncer in transaction mode. */
    POSTGRES_PGBOUNCER("postgres-pgbouncer", DatabaseKind.POSTGRES),
    /** {@link TestDatabases#mysql()}. */
    MYSQL8("mysql8", DatabaseKind.MYSQL),
    /** {@link TestDatabases#sqlServer()}. */
    SQLSERVER("sqlserver", DatabaseKind.SQLSERVER);

    private final String label;
    private final DatabaseKind kind;

    TestServer(String label, DatabaseKind kind) {
        this.label = label;
        this.kind = kind;
    }

    /**
     * The product this server runs.
     *
     * @return the kind
     */
    public DatabaseKind kind() {
        return kind;
    }

    /**
     * Finds or starts the server, once per JVM.
     *
     * @return the server
     * @throws AssertionError when it should be there and is not (an embedded server, or {@code CI=true})
     * @throws org.opentest4j.TestAbortedException when its absence is expected; the reason names what is missing
     */
    @Override
    public TestDatabase get() {
        return switch (this) {
            case POSTGRES_LOCAL -> TestDatabases.postgresLocal();
            case POSTGRES_EMBEDDED -> TestDatabases.postgresEmbedded();
            case MARIADB_LOCAL -> TestDatabases.mariadbLocal();
            case MARIADB_EMBEDDED -> TestDatabases.mariadbEmbedded();
            case MARIADB_LOCAL_CONNECTORJ -> TestDatabases.mariadbLocalConnectorJ();
            case MARIADB_EMBEDDED_CONNECTORJ -> TestDatabases.mariadbEmbeddedConnectorJ();
            case POSTGRES_STREAMING_ASYNC -> TestDatabases.postgresStreaming(PostgresCluster.Replication.ASYNC);
            case POSTGRES_STREAMING_SYNC -> TestDatabases.postgresStreaming(PostgresCluster.Replication.SYNC);
            case MARIADB_GALERA -> TestDatabases.mariadbGalera();
            case MARIADB_GALERA_SPREAD -> TestDatabases.mariadbGaleraSpread();
            case POSTGRES_PGBOUNCER -> TestDatabases.postgresPgBouncer();
            case MYSQL8 -> TestDatabases.mysql();
            case SQLSERVER -> TestDatabases.sqlServer();
        };
    }

    /**
     * A short label, such as {@code postgres-local}: the display name of a parameterized test.
     *
     * @return the label
     */
    @Override
    public String toString() {
        return label;
    }
}
