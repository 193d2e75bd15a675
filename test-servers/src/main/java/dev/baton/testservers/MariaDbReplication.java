package dev.baton.testservers;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assumptions;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A MariaDB primary with one GTID replica ({@code CHANGE MASTER TO … MASTER_USE_GTID=slave_pos}) on 127.0.0.1 ports
 * {@value #PRIMARY_PORT} and {@value #REPLICA_PORT}, built from the machine's MariaDB server ({@code
 * /usr/sbin/mariadbd}, {@code mariadb-install-db}) in a fresh directory {@code mreplica-*} under {@code
 * java.io.tmpdir} that {@link #close()} (or the JVM's exit) stops and deletes. Nothing is downloaded; the local MariaDB
 * on 3306 is not touched.
 *
 * <p>Both servers write a binary log ({@code binlog_format=ROW}, {@code log_slave_updates}), each with its own {@code
 * server_id} (primary 1, replica 2); the replica runs with {@code read_only=ON}. {@link Replication#SEMI_SYNC} turns
 * on MariaDB's built-in semi-synchronous replication ({@code rpl_semi_sync_master_wait_point=AFTER_SYNC}: a commit
 * returns once the replica has received its events, or after {@link #SEMI_SYNC_TIMEOUT_MILLIS} ms without an answer,
 * when the primary falls back to asynchronous replication until the replica catches up; {@link
 * #start(Replication, java.time.Duration)} sets another timeout). The servers run with {@code
 * innodb_flush_log_at_trx_commit=2} and {@code sync_binlog=0}: a {@code kill -9} of a server loses nothing the
 * operating system holds, so what a failover loses is only what replication had not carried.
 *
 * <p>Clients reach the writer through {@link #database()}, a {@code jdbc:mariadb:sequential:} URL that names the
 * primary, then the replica, as user {@code baton} (all privileges on database {@code test} only): {@code root} has
 * {@code READ_ONLY ADMIN} and would write on the read-only replica. After {@link #killPrimary()} new connections land
 * on the replica, which refuses writes (error 1290) until {@link #promoteReplica()}.
 *
 * <p>When the JVM runs as root, {@code mariadbd} gets {@code --user=mysql} (it refuses root). Not thread-safe: one test
 * drives one topology.
 */
public final class MariaDbReplication implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(MariaDbReplication.class);
    /** The primary's SQL port. */
    public static final int PRIMARY_PORT = 34010;
    /** The replica's SQL port. */
    public static final int REPLICA_PORT = 34011;
    /** How long a semi-synchronous primary waits by default for the replica's answer before it goes on alone. */
    public static final int SEMI_SYNC_TIMEOUT_MILLIS = 500;
    /**
     * Connector/J's {@code deniedListTimeout} in {@link #database()}: how long a host whose connection failed is
     * skipped (default 60 s). Baton aborts a connection that reached the read-only replica, which the driver counts
     * as a failure of the replica; with the primary dead too, new connections then failed for the full 60 s. 0
     * raced inside the driver (a {@code NullPointerException} in {@code HaMode.getAvailableHostInOrder}, 3.5.6).
     */
    static final int DENIED_LIST_TIMEOUT_MILLIS = 250;
    /**
     * Connector/J's {@code retriesAllDown} in {@link #database()} (default 120): when every host is down or denied, a
     * connection tries that often before it gives up. A pooled connection that failed reconnects by itself
     * (transparently, to the next host); one Baton aborted did so too, and with the default its thread hung about 30
     * s in there (the first claim after the kill came 30 s late).
     */
    static final int RETRIES_ALL_DOWN = 3;
    /** The user of {@link #database()}: all privileges on {@code test}, none that writes through read_only. */
    public static final String USER = "baton";

    static final Path MARIADBD = GaleraCluster.MARIADBD;
    static final String MISSING_BINARIES = "MariaDB primary and replica not available: needs " + MARIADBD
            + " and mariadb-install-db (Debian package mariadb-server)";
    private static final String OS_USER = "mysql";
    private static final int START_TIMEOUT_SECONDS = 60;

    /** How the primary waits for the replica when it commits. */
    public enum Replication {
        /** Commits return before the replica has their events (MariaDB's default). */
        ASYNC,
        /** Built-in semi-synchronous replication, {@code AFTER_SYNC}, with a 500 ms timeout. */
        SEMI_SYNC
    }

    private final Path home;
    private final Replication replication;
    private final long semiSyncTimeoutMillis;
    private final Thread cleanup;
    private final Process[] servers = new Process[2];
    private final int[] ports = {PRIMARY_PORT, REPLICA_PORT};
    /** Each node's {@code server_id}; a rebuilt node gets a new one (a replica skips events of its own id). */
    private final int[] serverIds = {1, 2};
    /** Index (0 or 1) of the node that is the writer now. */
    private int writer;

    private TestDatabase database;
    private boolean closed;

    private MariaDbReplication(Path home, Replication replication, long semiSyncTimeoutMillis) {
        this.home = home;
        this.replication = replication;
        this.semiSyncTimeoutMillis = semiSyncTimeoutMillis;
        this.cleanup = new Thread(this::stopAndDelete, "baton-mreplica-cleanup");
    }

    /** Whether this machine has what the topology needs. */
    static boolean available() {
        return Files.isExecutable(MARIADBD) && onPath("mariadb-install-db").isPresent();
    }

    /**
     * Builds and starts the primary and its replica (a few seconds) and waits until the replica replicates (for {@link
     * Replication#SEMI_SYNC}: as a semi-synchronous client of the primary).
     *
     * @param replication asynchronous or semi-synchronous
     * @return the running topology; the caller closes it
     * @throws org.opentest4j.TestAbortedException when the machine has no MariaDB server (the test is skipped, naming
     *     what is missing)
     * @throws IllegalStateException when the servers do not start; the message holds the end of their logs
     */
    public static MariaDbReplication start(Replication replication) {
        return start(replication, java.time.Duration.ofMillis(SEMI_SYNC_TIMEOUT_MILLIS));
    }

    /**
     * As {@link #start(Replication)}, with another {@code rpl_semi_sync_master_timeout}.
     *
     * @param replication asynchronous or semi-synchronous
     * @param semiSyncTimeout how long a semi-synchronous primary waits for the replica before it goes on alone
     * @return the running topology; the caller closes it
     */
    public static MariaDbReplication start(Replication replication, java.time.Duration semiSyncTimeout) {
        if (!available()) {
            Assumptions.abort(MISSING_BINARIES);
        }
        for (int attempt = 1; ; attempt++) {
            MariaDbReplication topology;
            try {
                topology = new MariaDbReplication(
                        Files.createTempDirectory("mreplica-"), replication, semiSyncTimeout.toMillis());
            } catch (IOException e) {
                throw new IllegalStateException("cannot make a directory for the MariaDB replication: " + e, e);
            }
            Runtime.getRuntime().addShutdownHook(topology.cleanup);
            long started = System.nanoTime();
            try {
                topology.build();
            } catch (Exception e) {
                String logs = topology.logTails();
                topology.close();
                // the ports are picked free before the servers bind them, and another process can take one in
                // between: start again on new ports
                if (attempt < 3 && logs.contains("Address already in use")) {
                    LOG.warn("a MariaDB server found its port taken (attempt {}); starting again", attempt);
                    continue;
                }
                throw new IllegalStateException("the MariaDB primary and replica did not start: " + e + logs, e);
            }
            LOG.info(
                    "MariaDB {} replication started in {} ms: {}",
                    replication,
                    TestDatabases.millisSince(started),
                    topology);
            return topology;
        }
    }

    /** The writer through a {@code sequential} URL naming the primary, then the replica; user {@link #USER}. */
    public TestDatabase database() {
        return database;
    }

    /** The replication mode. */
    public Replication replication() {
        return replication;
    }

    /** The writer's {@code server_id} (1 before a promotion, 2 after). */
    public int writerServerId() {
        return serverIds[writer];
    }

    /**
     * {@code kill -9} of the primary, as a machine crash would end it; returns once it is gone. Its clients see their
     * connections fail; the replica's I/O thread keeps trying to reconnect.
     */
    public void killPrimary() {
        Process p = servers[writer];
        if (p == null || !p.isAlive()) {
            throw new IllegalStateException("the primary is not running");
        }
        p.destroyForcibly();
        try {
            if (!p.waitFor(10, TimeUnit.SECONDS)) {
                throw new IllegalStateException("the primary did not exit");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
        servers[writer] = null;
    }

    /**
     * The replica stops receiving the primary's binary log ({@code STOP SLAVE IO_THREAD}): commits the primary
     * acknowledges afterwards exist only there, and a promotion loses them. A semi-synchronous primary waits its timeout
     * for its next commit, then goes on asynchronously.
     */
    public void pauseReplication() {
        replicaExecute("STOP SLAVE IO_THREAD");
    }

    /**
     * Promotes the replica as a failover manager would: stops its I/O thread, lets the SQL thread apply everything the
     * relay log holds, {@code STOP SLAVE}, {@code RESET SLAVE ALL}, {@code read_only=OFF}. Returns once it takes writes.
     */
    public void promoteReplica() {
        int replica = 1 - writer;
        try (Connection c = connect(ports[replica]);
                Statement s = c.createStatement()) {
            s.execute("STOP SLAVE IO_THREAD");
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(START_TIMEOUT_SECONDS);
            while (!appliedAllReceived(s)) {
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException("the replica did not apply its relay log in time");
                }
                sleep(10);
            }
            s.execute("STOP SLAVE");
            s.execute("RESET SLAVE ALL");
            s.execute("SET GLOBAL read_only = OFF");
        } catch (SQLException e) {
            throw new IllegalStateException("cannot promote the replica: " + e, e);
        }
        writer = replica;
    }

    /**
     * Rebuilds the killed old primary's node as a replica of the new primary (a fresh data directory that replicates
     * the new primary's whole binary log, which holds everything since the start through {@code log_slave_updates}),
     * with the topology's replication mode and a new {@code server_id} (3: a replica skips events that carry its own
     * id, and the new primary's binary log holds the old primary's events under id 1), on a free port, which {@link #database()} does not name
     * (a {@code sequential} URL would take the rebuilt replica, first in its list, for the writer); returns once it
     * replicates.
     */
    public void rebuildOldPrimaryAsReplica() {
        int old = 1 - writer;
        if (servers[old] != null && servers[old].isAlive()) {
            throw new IllegalStateException("the old primary still runs");
        }
        try (java.net.ServerSocket free = new java.net.ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            ports[old] = free.getLocalPort();
        } catch (IOException e) {
            throw new IllegalStateException("no free port: " + e, e);
        }
        // a new server_id: with its old one, the node would skip every event the old primary wrote, as its own
        serverIds[old] = 3;
        try {
            deleteRecursively(dataDir(old));
            install(old);
            startNode(old);
            awaitAnswers(old);
            follow(old, writer);
        } catch (Exception e) {
            throw new IllegalStateException("cannot rebuild the old primary as a replica: " + e + logTails(), e);
        }
    }

    /** Stops both servers ({@code kill -9}) and deletes the directory. Idempotent. */
    @Override
    public void close() {
        stopAndDelete();
        try {
            Runtime.getRuntime().removeShutdownHook(cleanup);
        } catch (IllegalStateException e) {
            // the JVM is exiting: the hook runs (or ran) anyway
        }
    }

    @Override
    public String toString() {
        return "MariaDB " + replication + " primary 127.0.0.1:" + PRIMARY_PORT + ", replica 127.0.0.1:" + REPLICA_PORT
                + ", in " + home;
    }

    // ---------------------------------------------------------------------------------------------------------

    private void build() throws Exception {
        if (isRoot()) {
            run("chown", OS_USER + ":" + OS_USER, home.toString());
        }
        install(0);
        install(1);
        startNode(0);
        startNode(1);
        awaitAnswers(0);
        awaitAnswers(1);
        try (Connection c = connect(PRIMARY_PORT);
                Statement s = c.createStatement()) {
            s.execute("CREATE DATABASE test");
            for (String host : List.of("%", "localhost", "127.0.0.1")) {
                s.execute("CREATE USER '" + USER + "'@'" + host + "'");
                s.execute("GRANT ALL PRIVILEGES ON test.* TO '" + USER + "'@'" + host + "'");
            }
        }
        follow(1, 0);
        String url = "jdbc:mariadb:sequential://127.0.0.1:" + PRIMARY_PORT + ",127.0.0.1:" + REPLICA_PORT
                + "/test?deniedListTimeout=" + DENIED_LIST_TIMEOUT_MILLIS
                + "&retriesAllDown=" + RETRIES_ALL_DOWN;
        database = TestDatabases.probe("mariadb-replication", DatabaseKind.MARIADB, url, USER, "");
    }

    /** Makes node {@code replica} a GTID replica of node {@code primary} and waits until it has caught up. */
    private void follow(int replica, int primary) throws SQLException {
        try (Connection c = connect(ports[replica]);
                Statement s = c.createStatement()) {
            s.execute("SET GLOBAL gtid_slave_pos = ''");
            s.execute("CHANGE MASTER TO MASTER_HOST = '127.0.0.1', MASTER_PORT = " + ports[primary]
                    + ", MASTER_USER = 'root', MASTER_PASSWORD = '', MASTER_CONNECT_RETRY = 1,"
                    + " MASTER_USE_GTID = slave_pos");
            s.execute("START SLAVE");
        }
        String target;
        try (Connection c = connect(ports[primary]);
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT @@GLOBAL.gtid_binlog_pos")) {
            rs.next();
            target = rs.getString(1);
        }
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(START_TIMEOUT_SECONDS);
        try (Connection c = connect(ports[replica]);
                Statement s = c.createStatement()) {
            try (ResultSet rs =
                    s.executeQuery("SELECT MASTER_GTID_WAIT('" + target + "', " + START_TIMEOUT_SECONDS + ")")) {
                rs.next();
                if (rs.getInt(1) != 0) { // -1: timed out
                    throw new IllegalStateException("the replica did not reach " + target);
                }
            }
            if (replication == Replication.SEMI_SYNC) {
                // on only now: before, each commit (the set-up's, the catch-up's) would wait out the timeout
                try (Connection p = connect(ports[primary]);
                        Statement ps = p.createStatement()) {
                    ps.execute("SET GLOBAL rpl_semi_sync_master_wait_point = AFTER_SYNC");
                    ps.execute("SET GLOBAL rpl_semi_sync_master_timeout = " + semiSyncTimeoutMillis);
                    ps.execute("SET GLOBAL rpl_semi_sync_master_enabled = ON");
                }
                s.execute("STOP SLAVE IO_THREAD");
                s.execute("START SLAVE IO_THREAD"); // asks for semi-synchronous replication again
                while (semiSyncClients(ports[primary]) < 1) {
                    if (System.nanoTime() > deadline) {
                        throw new IllegalStateException("the replica is no semi-synchronous client");
                    }
                    sleep(50);
                }
            }
        }
    }

    private int semiSyncClients(int port) throws SQLException {
        try (Connection c = connect(port);
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SHOW GLOBAL STATUS LIKE 'Rpl_semi_sync_master_clients'")) {
            return rs.next() ? rs.getInt(2) : 0;
        }
    }

    /** Whether the SQL thread has applied everything the I/O thread wrote to the relay log. */
    private static boolean appliedAllReceived(Statement s) throws SQLException {
        try (ResultSet rs = s.executeQuery("SHOW SLAVE STATUS")) {
            if (!rs.next()) {
                return true;
            }
            // the I/O thread may have stopped inside a transaction, whose events the SQL thread never applies: the
            // positions then stay apart, and the SQL thread says it has read everything
            return String.valueOf(rs.getString("Slave_SQL_Running_State")).contains("read all relay log")
                    || (rs.getString("Master_Log_File").equals(rs.getString("Relay_Master_Log_File"))
                            && rs.getLong("Read_Master_Log_Pos") == rs.getLong("Exec_Master_Log_Pos"));
        }
    }

    private void install(int node) throws IOException, InterruptedException {
        List<String> install = new ArrayList<>(asServerUser());
        install.addAll(List.of(
                onPath("mariadb-install-db").orElseThrow().toString(),
                "--no-defaults",
                "--datadir=" + dataDir(node),
                "--auth-root-authentication-method=normal",
                "--skip-test-db"));
        run(install.toArray(new String[0]));
    }

    private void startNode(int node) throws IOException {
        List<String> command = new ArrayList<>(List.of(
                MARIADBD.toString(),
                "--no-defaults",
                "--datadir=" + dataDir(node),
                "--socket=" + home.resolve("node" + node + ".sock"),
                "--pid-file=" + home.resolve("node" + node + ".pid"),
                "--log-error=" + log(node),
                "--bind-address=127.0.0.1",
                "--port=" + ports[node],
                "--server-id=" + serverIds[node],
                "--log-bin=" + dataDir(node).resolve("binlog"),
                "--log-slave-updates=ON",
                "--binlog-format=ROW",
                "--innodb-buffer-pool-size=64M",
                "--innodb-log-file-size=32M",
                "--innodb-flush-log-at-trx-commit=2",
                "--sync-binlog=0",
                "--max-connections=200",
                "--default-storage-engine=InnoDB"));
        if (node != writer || database != null) {
            command.add("--read-only=ON"); // a replica (the initial one, or a rebuilt old primary)
        }
        if (replication == Replication.SEMI_SYNC) {
            command.add("--rpl-semi-sync-slave-enabled=ON"); // the primary's side is turned on by follow()
        }
        if (isRoot()) {
            command.add("--user=" + OS_USER);
        }
        servers[node] = new ProcessBuilder(command)
                .directory(home.toFile())
                .redirectErrorStream(true)
                .redirectOutput(home.resolve("node" + node + ".out").toFile())
                .start();
    }

    private void awaitAnswers(int node) throws SQLException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(START_TIMEOUT_SECONDS);
        while (true) {
            Process p = servers[node];
            if (p == null || !p.isAlive()) {
                throw new IllegalStateException("node " + node + " exited");
            }
            try (Connection c = connect(ports[node])) {
                if (c.isValid(2)) {
                    return;
                }
            } catch (SQLException e) {
                if (System.nanoTime() > deadline) {
                    throw e;
                }
            }
            sleep(100);
        }
    }

    private void replicaExecute(String sql) {
        try (Connection c = connect(ports[1 - writer]);
                Statement s = c.createStatement()) {
            s.execute(sql);
        } catch (SQLException e) {
            throw new IllegalStateException(sql + " on the replica: " + e, e);
        }
    }

    private void stopAndDelete() {
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
        }
        for (Process p : servers) {
            if (p != null) {
                p.destroyForcibly();
            }
        }
        for (Process p : servers) {
            if (p != null) {
                try {
                    p.waitFor(10, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
        }
        deleteRecursively(home);
    }

    private Path dataDir(int node) {
        return home.resolve("node" + node);
    }

    private Path log(int node) {
        return home.resolve("node" + node + ".err");
    }

    private static Connection connect(int port) throws SQLException {
        Properties p = new Properties();
        p.setProperty("user", "root");
        p.setProperty("password", "");
        p.setProperty("connectTimeout", "2000");
        return DriverManager.getConnection("jdbc:mariadb://127.0.0.1:" + port + "/", p);
    }

    /** The end of each node's log, for a failure message. */
    private String logTails() {
        StringBuilder out = new StringBuilder();
        for (int node = 0; node < 2; node++) {
            try {
                List<String> lines = Files.readAllLines(log(node), StandardCharsets.UTF_8);
                out.append("\n--- ").append(log(node)).append(" (end) ---\n");
                lines.subList(Math.max(0, lines.size() - 20), lines.size())
                        .forEach(l -> out.append(l).append('\n'));
            } catch (IOException e) {
                // no log yet
            }
        }
        return out.toString();
    }

    private static boolean isRoot() {
        return "root".equals(System.getProperty("user.name"));
    }

    private static List<String> asServerUser() {
        return isRoot() ? List.of("runuser", "-u", OS_USER, "--") : List.of();
    }

    private void run(String... command) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(command)
                .directory(home.toFile())
                .redirectErrorStream(true)
                .start();
        String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!p.waitFor(START_TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new IOException(String.join(" ", command) + " did not finish: " + output);
        }
        if (p.exitValue() != 0) {
            throw new IOException(String.join(" ", command) + " exited with " + p.exitValue() + ": " + output);
        }
    }

    private static Optional<Path> onPath(String name) {
        String path = System.getenv("PATH");
        List<String> dirs = new ArrayList<>(List.of("/usr/bin", "/usr/sbin", "/bin", "/sbin"));
        if (path != null) {
            dirs.addAll(0, List.of(path.split(":")));
        }
        return dirs.stream()
                .filter(d -> !d.isEmpty())
                .map(d -> Paths.get(d, name))
                .filter(Files::isExecutable)
                .findFirst();
    }

    private static void deleteRecursively(Path dir) {
        if (!Files.exists(dir)) {
            return;
        }
        try (Stream<Path> paths = Files.walk(dir)) {
            paths.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException e) {
            LOG.debug("deleting {}: {}", dir, e.toString());
        }
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }
}
