package dev.baton.testservers;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
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
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assumptions;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A three-node MariaDB Galera cluster on free ports of 127.0.0.1, built from the machine's MariaDB server ({@code
 * /usr/sbin/mariadbd}, {@code mariadb-install-db}) and Galera 4 provider ({@code /usr/lib/galera/libgalera_smm.so},
 * Debian package {@code galera-4}), in a fresh directory under {@code java.io.tmpdir} that {@link #close()} (or the
 * JVM's exit) stops and deletes. Nothing is downloaded; the local MariaDB on 3306 is not touched.
 *
 * <p>Node 1 is initialised with {@code mariadb-install-db} and bootstraps the cluster ({@code --wsrep-new-cluster});
 * nodes 2 and 3 start with empty data directories and receive node 1's state by {@code rsync} SST. Each node has its
 * own SQL port, group-communication port, IST port and SST port. The nodes run with {@code binlog_format=ROW}, {@code
 * innodb_autoinc_lock_mode=2} and {@code innodb_flush_log_at_trx_commit=0}: they are for correctness tests, not for
 * measuring commits. When the JVM runs as root, {@code mariadbd} gets {@code --user=mysql} (it refuses root).
 *
 * <p>{@link #database()} reaches the cluster through a {@code jdbc:mariadb:sequential:} URL (node 1 while it answers:
 * one writer, as behind a Galera-aware proxy); {@link #spread()} through a {@code jdbc:mariadb:loadbalance:} URL (each
 * connection on a random node: multi-primary writes); {@link #node(int)} reaches one node. Their connections run
 * with {@code wsrep_sync_wait=3} (reads, updates and deletes wait until the node has applied every write the cluster
 * committed before), the setting Baton's documentation asks for on Galera; those of {@link #spread()} with 7 (inserts
 * too).
 *
 * <p>Not thread-safe: one test drives one cluster.
 */
public final class GaleraCluster implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(GaleraCluster.class);
    static final Path MARIADBD = Paths.get("/usr/sbin/mariadbd");
    static final Path PROVIDER = Paths.get("/usr/lib/galera/libgalera_smm.so");
    static final String MISSING_BINARIES = "MariaDB Galera not available: needs " + MARIADBD + ", mariadb-install-db,"
            + " rsync and the Galera provider " + PROVIDER + " (Debian packages mariadb-server, galera-4, rsync)";
    private static final String OS_USER = "mysql";
    private static final int NODES = 3;
    private static final int START_TIMEOUT_SECONDS = 90;
    /** The {@code wsrep_sync_wait} of every connection of the tests: READ (1) + UPDATE/DELETE (2). */
    public static final int SYNC_WAIT = 3;
    /**
     * The {@code wsrep_sync_wait} of {@link #spread()}: also INSERT/REPLACE (4), whose unique check on one node must
     * see a row another node deleted (without it, a delete on node 1 and an insert of the same key on node 2 may
     * fail with a duplicate key).
     */
    public static final int SPREAD_SYNC_WAIT = 7;

    private final Path home;
    private final String clusterName;
    private final int[] sqlPorts = new int[NODES];
    private final int[] groupPorts = new int[NODES];
    private final int[] istPorts = new int[NODES];
    private final int[] sstPorts = new int[NODES];
    private final Process[] servers = new Process[NODES];
    private final Thread cleanup;
    private TestDatabase database;
    private TestDatabase spread;
    private boolean closed;

    private GaleraCluster(Path home) throws IOException {
        this.home = home;
        // gcomm takes at most 32 characters; distinct per cluster, so that two JVMs' clusters never merge
        this.clusterName = "baton_" + directoryKey();
        for (int i = 0; i < NODES; i++) {
            sqlPorts[i] = freePort();
            groupPorts[i] = freePort();
            istPorts[i] = freePort();
            sstPorts[i] = freePort();
        }
        this.cleanup = new Thread(this::stopAndDelete, "baton-galera-cleanup");
    }

    private String directoryKey() {
        return home.getFileName().toString().replaceAll("[^0-9]", "");
    }

    /** Whether this machine has what a cluster needs. */
    static boolean available() {
        return Files.isExecutable(MARIADBD)
                && Files.isReadable(PROVIDER)
                && onPath("mariadb-install-db").isPresent()
                && onPath("rsync").isPresent();
    }

    /**
     * Builds and starts the three nodes (about 30 seconds, most of it the two state transfers) and waits until all
     * three are synced.
     *
     * @return the running cluster; the caller closes it
     * @throws org.opentest4j.TestAbortedException when the machine has no MariaDB server or Galera provider (the test
     *     is skipped, naming what is missing)
     * @throws IllegalStateException when the nodes do not start; the message holds the end of their logs
     */
    public static GaleraCluster start() {
        if (!available()) {
            Assumptions.abort(MISSING_BINARIES);
        }
        for (int attempt = 1; ; attempt++) {
            GaleraCluster cluster;
            try {
                cluster = new GaleraCluster(Files.createTempDirectory("baton-galera-"));
            } catch (IOException e) {
                throw new IllegalStateException("cannot make a directory for the Galera cluster: " + e, e);
            }
            Runtime.getRuntime().addShutdownHook(cluster.cleanup);
            long started = System.nanoTime();
            try {
                cluster.build();
            } catch (Exception e) {
                String logs = cluster.logTails();
                cluster.close();
                // the ports are picked free before the nodes bind them, and a node's own outgoing connection can take
                // one of them in between: start again on new ports
                if (attempt < 3 && logs.contains("Address already in use")) {
                    LOG.warn("a Galera node found its port taken (attempt {}); starting the cluster again", attempt);
                    continue;
                }
                throw new IllegalStateException("the Galera cluster did not start: " + e + logs, e);
            }
            LOG.info("MariaDB Galera cluster started in {} ms: {}", TestDatabases.millisSince(started), cluster);
            return cluster;
        }
    }

    /**
     * The cluster through a {@code sequential} URL, database {@code test}: every connection on node 1 while it
     * answers, else on node 2, else node 3 (one writer at a time, as most Galera deployments run behind a proxy).
     */
    public TestDatabase database() {
        return database;
    }

    /**
     * The cluster through a {@code loadbalance} URL, database {@code test}: each new connection on a node picked at
     * random, so a pool writes on all three nodes at once and concurrent transactions certify against each other.
     */
    public TestDatabase spread() {
        return spread;
    }

    /**
     * One node, database {@code test}.
     *
     * @param node 1, 2 or 3
     * @return the node's database, user {@code root} without password
     */
    public TestDatabase node(int node) {
        checkNode(node);
        try {
            return TestDatabases.probe("mariadb-galera-node" + node, DatabaseKind.MARIADB, nodeUrl(node), "root", "");
        } catch (SQLException e) {
            throw new IllegalStateException("node " + node + " does not answer: " + e, e);
        }
    }

    /**
     * {@code kill -9} of one node's server and its children; returns once they are gone. The others see it leave
     * after the group's suspect timeout (a few seconds) and go on as a two-node primary component.
     *
     * @param node 1, 2 or 3
     */
    public void killNode(int node) {
        checkNode(node);
        Process p = servers[node - 1];
        if (p == null || !p.isAlive()) {
            throw new IllegalStateException("node " + node + " is not running");
        }
        List<ProcessHandle> children = p.descendants().toList();
        p.destroyForcibly();
        children.forEach(ProcessHandle::destroyForcibly);
        try {
            if (!p.waitFor(10, TimeUnit.SECONDS)) {
                throw new IllegalStateException("node " + node + " did not exit");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
        servers[node - 1] = null;
    }

    /**
     * Starts a node killed by {@link #killNode(int)} again; it rejoins and this returns once it is synced. After a
     * {@code kill -9} the node does not know its last position (this class runs no {@code --wsrep-recover} step), so
     * it receives a full {@code rsync} SST, then by IST what was committed during the transfer ({@code
     * GaleraFailoverTest}: synced 23 s after the kill, under load).
     *
     * @param node 2 or 3 (node 1 bootstrapped the cluster; a killed node 1 rejoins like the others)
     */
    public void restartNode(int node) {
        checkNode(node);
        if (servers[node - 1] != null && servers[node - 1].isAlive()) {
            throw new IllegalStateException("node " + node + " still runs");
        }
        try {
            startNode(node, false);
            awaitSynced(node);
        } catch (Exception e) {
            throw new IllegalStateException("node " + node + " did not rejoin: " + e + logTails(), e);
        }
    }

    /** Stops the three nodes at once ({@code kill -9}) and deletes the directory. Idempotent. */
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
        StringBuilder text = new StringBuilder("MariaDB Galera, SQL ports");
        for (int port : sqlPorts) {
            text.append(' ').append(port);
        }
        return text.append(", in ").append(home).toString();
    }

    // ---------------------------------------------------------------------------------------------------------

    private void build() throws Exception {
        if (isRoot()) {
            run("chown", OS_USER + ":" + OS_USER, home.toString());
        }
        List<String> install = new ArrayList<>(asServerUser());
        install.addAll(List.of(
                onPath("mariadb-install-db").orElseThrow().toString(),
                "--no-defaults",
                "--datadir=" + dataDir(1),
                "--auth-root-authentication-method=normal",
                "--skip-test-db"));
        run(install.toArray(new String[0]));
        for (int node = 2; node <= NODES; node++) {
            Files.createDirectories(dataDir(node));
            if (isRoot()) {
                run("chown", OS_USER + ":" + OS_USER, dataDir(node).toString());
            }
        }
        startNode(1, true);
        awaitSynced(1);
        try (Connection c = connect(sqlPorts[0], "");
                Statement s = c.createStatement()) {
            s.execute("CREATE DATABASE test");
        }
        for (int node = 2; node <= NODES; node++) {
            startNode(node, false);
        }
        for (int node = 2; node <= NODES; node++) {
            awaitSynced(node);
        }
        String hosts =
                Stream.of(1, 2, 3).map(n -> "127.0.0.1:" + sqlPorts[n - 1]).collect(Collectors.joining(","));
        String options = "/test?sessionVariables=wsrep_sync_wait=" + SYNC_WAIT;
        database = TestDatabases.probe(
                "mariadb-galera", DatabaseKind.MARIADB, "jdbc:mariadb:sequential://" + hosts + options, "root", "");
        spread = TestDatabases.probe(
                "mariadb-galera-spread",
                DatabaseKind.MARIADB,
                "jdbc:mariadb:loadbalance://" + hosts + "/test?sessionVariables=wsrep_sync_wait=" + SPREAD_SYNC_WAIT,
                "root",
                "");
    }

    private void startNode(int node, boolean bootstrap) throws IOException {
        int i = node - 1;
        List<String> members = new ArrayList<>();
        for (int other = 0; other < NODES; other++) {
            if (other != i) {
                members.add("127.0.0.1:" + groupPorts[other]);
            }
        }
        List<String> command = new ArrayList<>(List.of(
                MARIADBD.toString(),
                "--no-defaults",
                "--datadir=" + dataDir(node),
                "--socket=" + home.resolve("node" + node + ".sock"),
                "--pid-file=" + home.resolve("node" + node + ".pid"),
                "--log-error=" + log(node),
                "--bind-address=127.0.0.1",
                "--port=" + sqlPorts[i],
                "--innodb-buffer-pool-size=32M",
                "--innodb-log-file-size=16M",
                "--innodb-flush-log-at-trx-commit=0",
                "--max-connections=300",
                "--binlog-format=ROW",
                "--innodb-autoinc-lock-mode=2",
                "--default-storage-engine=InnoDB",
                "--wsrep-on=ON",
                "--wsrep-provider=" + PROVIDER,
                "--wsrep-cluster-name=" + clusterName,
                "--wsrep-node-name=node" + node,
                "--wsrep-node-address=127.0.0.1:" + groupPorts[i],
                "--wsrep-node-incoming-address=127.0.0.1:" + sqlPorts[i],
                "--wsrep-provider-options=gmcast.listen_addr=tcp://127.0.0.1:" + groupPorts[i]
                        + ";ist.recv_addr=127.0.0.1:" + istPorts[i] + ";base_port=" + groupPorts[i]
                        + ";gcache.size=64M",
                "--wsrep-sst-receive-address=127.0.0.1:" + sstPorts[i],
                "--wsrep-sst-method=rsync",
                "--wsrep-cluster-address=gcomm://" + (bootstrap ? "" : String.join(",", members))));
        if (bootstrap) {
            command.add("--wsrep-new-cluster");
        }
        if (isRoot()) {
            command.add("--user=" + OS_USER);
        }
        servers[i] = new ProcessBuilder(command)
                .directory(home.toFile())
                .redirectErrorStream(true)
                .redirectOutput(home.resolve("node" + node + ".out").toFile())
                .start();
    }

    private void awaitSynced(int node) throws SQLException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(START_TIMEOUT_SECONDS);
        while (true) {
            Process p = servers[node - 1];
            if (p == null || !p.isAlive()) {
                throw new IllegalStateException("node " + node + " exited");
            }
            try (Connection c = connect(sqlPorts[node - 1], "");
                    Statement s = c.createStatement();
                    ResultSet rs = s.executeQuery("SHOW STATUS LIKE 'wsrep_local_state_comment'")) {
                if (rs.next() && "Synced".equals(rs.getString(2))) {
                    return;
                }
            } catch (SQLException e) {
                if (System.nanoTime() > deadline) {
                    throw e;
                }
            }
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("node " + node + " not synced after " + START_TIMEOUT_SECONDS + " s");
            }
            sleep(100);
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
                p.descendants().forEach(ProcessHandle::destroyForcibly);
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

    private String nodeUrl(int node) {
        return "jdbc:mariadb://127.0.0.1:" + sqlPorts[node - 1] + "/test?sessionVariables=wsrep_sync_wait=" + SYNC_WAIT;
    }

    private Path dataDir(int node) {
        return home.resolve("node" + node);
    }

    private Path log(int node) {
        return home.resolve("node" + node + ".err");
    }

    private static void checkNode(int node) {
        if (node < 1 || node > NODES) {
            throw new IllegalArgumentException("node must be 1 to " + NODES + ": " + node);
        }
    }

    private static Connection connect(int port, String database) throws SQLException {
        Properties p = new Properties();
        p.setProperty("user", "root");
        p.setProperty("password", "");
        p.setProperty("connectTimeout", "2000");
        return DriverManager.getConnection("jdbc:mariadb://127.0.0.1:" + port + "/" + database, p);
    }

    /** The end of each node's error log, for a failure message. */
    public String logTails() {
        StringBuilder out = new StringBuilder();
        for (int node = 1; node <= NODES; node++) {
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

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
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
