package dev.baton.testservers;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.StandardOpenOption;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assumptions;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A PostgreSQL primary with one streaming standby on free ports of 127.0.0.1, built from the server binaries of the
 * machine's PostgreSQL package ({@code initdb}, {@code pg_ctl}, {@code pg_basebackup} under {@code
 * /usr/lib/postgresql/<version>/bin}, or {@code BATON_TEST_PG_BIN}), in a fresh directory under {@code java.io.tmpdir}
 * that {@link #close()} (or the JVM's exit) stops and deletes. Clients reach the writer through {@link #database()},
 * whose URL names both servers with {@code targetServerType=primary}: after {@link #promoteStandby()} new connections
 * find the new primary by themselves.
 *
 * <p>When the JVM runs as root, the server processes run as the {@code postgres} operating-system user ({@code
 * runuser -u postgres --}), which owns the directory: {@code initdb} and {@code postgres} refuse to run as root. The
 * servers run with {@code fsync=off}: a {@code kill -9} of the primary loses nothing the operating system holds, so
 * what a failover loses is only what replication had not carried.
 *
 * <p>Faults for failover tests: {@link #killPrimary()} ({@code kill -9} of the postmaster and its children), {@link
 * #promoteStandby()}, {@link #detachStandby()} (the standby stops receiving WAL, so commits acknowledged afterwards
 * exist only on the primary: promoting then loses them), {@link #pauseReplay()}. {@link #timeline()} is the writer's
 * timeline, the epoch a promotion moves on by one.
 *
 * <p>Not thread-safe: one test drives one cluster.
 */
public final class PostgresCluster implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(PostgresCluster.class);
    static final String BIN_VARIABLE = "BATON_TEST_PG_BIN";
    static final String MISSING_BINARIES = "PostgreSQL server binaries (initdb, pg_ctl, pg_basebackup, postgres) not"
            + " found in " + BIN_VARIABLE + " or /usr/lib/postgresql/<version>/bin: install the PostgreSQL server"
            + " package (Debian: postgresql) to run the primary-and-standby tests";
    private static final String STANDBY_NAME = "standby1";
    private static final String OS_USER = "postgres";
    private static final int START_TIMEOUT_SECONDS = 30;

    /** How the primary waits for the standby when it commits. */
    public enum Replication {
        /** Commits return before the standby has the WAL (PostgreSQL's default; Patroni's default). */
        ASYNC,
        /**
         * {@code synchronous_standby_names = 'standby1'} and {@code synchronous_commit = on}: a commit returns once the
         * standby has flushed its WAL, so a promotion loses no acknowledged commit.
         */
        SYNC
    }

    private final Path bin;
    private final Path home;
    private final Replication replication;
    private final Thread cleanup;
    private int primaryPort;
    private int standbyPort;
    private Path primaryDir;
    private Path standbyDir;
    private int nodes;
    private TestDatabase database;
    private boolean closed;

    private PostgresCluster(Path bin, Path home, Replication replication, int primaryPort, int standbyPort) {
        this.bin = bin;
        this.home = home;
        this.replication = replication;
        this.primaryPort = primaryPort;
        this.standbyPort = standbyPort;
        this.primaryDir = newNodeDir();
        this.standbyDir = newNodeDir();
        this.cleanup = new Thread(this::stopAndDelete, "baton-pgcluster-cleanup");
    }

    /**
     * Builds and starts a primary and a streaming standby (a few seconds), and waits until the standby streams (and,
     * for {@link Replication#SYNC}, is the synchronous one).
     *
     * @param replication asynchronous or synchronous
     * @return the running cluster; the caller closes it
     * @throws org.opentest4j.TestAbortedException when the machine has no PostgreSQL server binaries (the test is
     *     skipped, naming what is missing)
     * @throws IllegalStateException when the servers do not start; the message holds the end of their logs
     */
    public static PostgresCluster start(Replication replication) {
        Path bin = binaries().orElseGet(() -> Assumptions.abort(MISSING_BINARIES));
        PostgresCluster cluster;
        try {
            Path home = Files.createTempDirectory("baton-pgcluster-");
            cluster = new PostgresCluster(bin, home, replication, freePort(), freePort());
        } catch (IOException e) {
            throw new IllegalStateException("cannot make a directory for the cluster: " + e, e);
        }
        Runtime.getRuntime().addShutdownHook(cluster.cleanup);
        long started = System.nanoTime();
        try {
            cluster.build();
        } catch (Exception e) {
            String logs = cluster.logTails();
            cluster.close();
            throw new IllegalStateException("the PostgreSQL cluster did not start: " + e + logs, e);
        }
        LOG.info(
                "PostgreSQL {} cluster started in {} ms: {}", replication, TestDatabases.millisSince(started), cluster);
        return cluster;
    }

    /** The writer, through a URL that names both servers with {@code targetServerType=primary}. */
    public TestDatabase database() {
        return database;
    }

    /** The replication mode. */
    public Replication replication() {
        return replication;
    }

    /** The port of the primary (after {@link #promoteStandby()}, the promoted one). */
    public int primaryPort() {
        return primaryPort;
    }

    /** The port of the standby (after {@link #promoteStandby()}, the old primary's, until rebuilt). */
    public int standbyPort() {
        return standbyPort;
    }

    /**
     * {@code kill -9} of the primary's postmaster and all its processes, as a machine crash would end them; returns
     * once they are gone. Its clients see their connections fail at once; its standby keeps trying to reconnect.
     */
    public void killPrimary() {
        long pid = postmasterPid(primaryDir).orElseThrow(() -> new IllegalStateException("the primary is not running"));
        ProcessHandle postmaster = ProcessHandle.of(pid).orElseThrow();
        List<ProcessHandle> children = postmaster.descendants().toList();
        postmaster.destroyForcibly();
        children.forEach(ProcessHandle::destroyForcibly);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        for (ProcessHandle p : concat(postmaster, children)) {
            while (p.isAlive()) {
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException("process " + p.pid() + " of the primary did not exit");
                }
                sleep(5);
            }
        }
    }

    /**
     * Fences the primary as a failover manager does before it promotes the standby: {@code default_transaction_read_only
     * = on}, reloaded, so every new transaction on it (open sessions included, from their next statement) is read-only
     * and a write fails with SQLSTATE 25006. The server keeps running and its clients stay connected.
     */
    public void fencePrimary() {
        try (Connection c = connect(primaryPort, "postgres");
                Statement s = c.createStatement()) {
            s.execute("ALTER SYSTEM SET default_transaction_read_only = on");
            s.execute("SELECT pg_reload_conf()");
        } catch (SQLException e) {
            throw new IllegalStateException("cannot fence the primary: " + e, e);
        }
    }

    /**
     * Promotes the standby ({@code pg_promote(true)}) and returns once it accepts writes; it is then the primary, and
     * the old primary's node the standby (stopped, until {@link #rebuildStandby()}). A promotion ends a paused replay
     * and replays every WAL record the standby had received before it takes writes.
     */
    public void promoteStandby() {
        try (Connection c = connect(standbyPort, "postgres");
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT pg_promote(true, 30)")) {
            if (!rs.next() || !rs.getBoolean(1)) {
                throw new IllegalStateException("pg_promote() did not finish within 30 s" + logTails());
            }
        } catch (SQLException e) {
            throw new IllegalStateException("cannot promote the standby: " + e, e);
        }
        int port = primaryPort;
        primaryPort = standbyPort;
        standbyPort = port;
        Path dir = primaryDir;
        primaryDir = standbyDir;
        standbyDir = dir;
    }

    /**
     * After a failover, gives the new primary a standby again, as a failover manager re-seeds the old primary's node:
     * a fresh base backup of the primary, started on the old primary's port (which must be stopped), streaming (and
     * synchronous, for {@link Replication#SYNC}) before this returns. A few seconds.
     */
    public void rebuildStandby() {
        if (postmasterPid(standbyDir).isPresent()) {
            throw new IllegalStateException("the standby's node still runs: kill or promote first");
        }
        try {
            standbyDir = newNodeDir();
            startStandby();
        } catch (Exception e) {
            throw new IllegalStateException("cannot rebuild the standby: " + e + logTails(), e);
        }
    }

    /**
     * Pauses the standby's replay ({@code pg_wal_replay_pause()}). It still receives and flushes WAL, and a promotion
     * replays it all first: a paused replay alone loses nothing on failover (see {@link #detachStandby()}).
     */
    public void pauseReplay() {
        onStandby("SELECT pg_wal_replay_pause()");
    }

    /**
     * Stops the standby receiving WAL ({@code primary_conninfo = ''}, reloaded): commits the primary acknowledges from
     * now on exist nowhere else, as on an asynchronous standby that lags. Returns once the primary sees no standby.
     * On a {@link Replication#SYNC} cluster the primary's commits then wait for a standby that never comes.
     */
    public void detachStandby() {
        onStandby("ALTER SYSTEM SET primary_conninfo = ''");
        onStandby("SELECT pg_reload_conf()");
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (queryLong(primaryPort, "SELECT count(*) FROM pg_stat_replication") > 0) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("the standby still streams 10 s after it was detached");
            }
            sleep(20);
        }
    }

    /** The writer's timeline (1 at first; each promotion adds one), read through {@link #database()}. */
    public int timeline() {
        try (Connection c = database.connect();
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery(
                        "SELECT ('x' || substr(pg_walfile_name(pg_current_wal_lsn()), 1, 8))::bit(32)::int")) {
            rs.next();
            return rs.getInt(1);
        } catch (SQLException e) {
            throw new IllegalStateException("cannot read the writer's timeline: " + e, e);
        }
    }

    /** Stops both servers at once ({@code pg_ctl stop -m immediate}) and deletes the directory. Idempotent. */
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
        return "PostgreSQL " + replication + " primary 127.0.0.1:" + primaryPort + ", standby 127.0.0.1:" + standbyPort
                + " in " + home;
    }

    // ---------------------------------------------------------------------------------------------------------

    private void build() throws Exception {
        run("chown", OS_USER + ":" + OS_USER, home.toString());
        Path primary = primaryDir;
        asPostgres(
                bin.resolve("initdb").toString(),
                "-D",
                primary.toString(),
                "-U",
                "postgres",
                "--auth=trust",
                "-E",
                "UTF8",
                "--locale=C",
                "--no-sync");
        append(
                primary.resolve("postgresql.conf"),
                "listen_addresses = '127.0.0.1'",
                "port = " + primaryPort,
                "unix_socket_directories = '" + home + "'",
                "wal_level = replica",
                "max_wal_senders = 5",
                "max_connections = 100",
                "fsync = off",
                "wal_keep_size = '256MB'");
        startServer(primary);
        try (Connection c = connect(primaryPort, "postgres");
                Statement s = c.createStatement()) {
            s.execute("CREATE DATABASE test");
        }
        startStandby();
        String url = "jdbc:postgresql://127.0.0.1:" + primaryPort + ",127.0.0.1:" + standbyPort
                + "/test?targetServerType=primary&hostRecheckSeconds=1&connectTimeout=2";
        database = TestDatabases.probe(
                "postgres-cluster-" + replication.name().toLowerCase(Locale.ROOT),
                DatabaseKind.POSTGRES,
                url,
                "postgres",
                null);
    }

    /** A base backup of the primary into {@link #standbyDir}, started as its streaming standby. */
    private void startStandby() throws Exception {
        asPostgres(
                bin.resolve("pg_basebackup").toString(),
                "-h",
                "127.0.0.1",
                "-p",
                String.valueOf(primaryPort),
                "-U",
                "postgres",
                "-D",
                standbyDir.toString(),
                "-R",
                "-X",
                "stream",
                "--checkpoint=fast");
        // read after postgresql.conf, and the last setting of a name wins: overrides the primary's port and the
        // primary_conninfo that pg_basebackup -R wrote, naming the standby for synchronous_standby_names
        append(
                standbyDir.resolve("postgresql.auto.conf"),
                "port = " + standbyPort,
                "synchronous_standby_names = ''",
                "primary_conninfo = 'host=127.0.0.1 port=" + primaryPort + " user=postgres application_name="
                        + STANDBY_NAME + "'");
        startServer(standbyDir);
        awaitStandby("streaming", "state");
        if (replication == Replication.SYNC) {
            try (Connection c = connect(primaryPort, "postgres");
                    Statement s = c.createStatement()) {
                s.execute("ALTER SYSTEM SET synchronous_standby_names = '" + STANDBY_NAME + "'");
                s.execute("ALTER SYSTEM SET synchronous_commit = 'on'");
                s.execute("SELECT pg_reload_conf()");
            }
            awaitStandby("sync", "sync_state");
        }
    }

    private void awaitStandby(String value, String column) throws SQLException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(START_TIMEOUT_SECONDS);
        String sql = "SELECT count(*) FROM pg_stat_replication WHERE application_name = '" + STANDBY_NAME + "' AND "
                + column + " = '" + value + "'";
        while (queryLong(primaryPort, sql) == 0) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException(
                        "the standby is not " + value + " after " + START_TIMEOUT_SECONDS + " s");
            }
            sleep(50);
        }
    }

    private void startServer(Path dataDir) throws Exception {
        asPostgres(
                bin.resolve("pg_ctl").toString(),
                "-D",
                dataDir.toString(),
                "-l",
                dataDir + ".log",
                "-w",
                "-t",
                String.valueOf(START_TIMEOUT_SECONDS),
                "start");
    }

    private void stopAndDelete() {
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
        }
        for (int n = 1; n <= nodes; n++) {
            Path dataDir = home.resolve("node" + n);
            if (postmasterPid(dataDir).isPresent()) {
                try {
                    asPostgres(bin.resolve("pg_ctl").toString(), "-D", dataDir.toString(), "-m", "immediate", "stop");
                } catch (Exception e) {
                    LOG.warn("stopping {} of {}: {}", dataDir, this, e.toString());
                }
            }
        }
        deleteRecursively(home);
    }

    /** A data directory for the next node: {@code node1}, {@code node2}, … (each with its log beside it). */
    private Path newNodeDir() {
        nodes++;
        return home.resolve("node" + nodes);
    }

    /** The postmaster's pid, when its {@code postmaster.pid} names a live process. */
    private static Optional<Long> postmasterPid(Path dataDir) {
        try {
            List<String> lines = Files.readAllLines(dataDir.resolve("postmaster.pid"));
            long pid = Long.parseLong(lines.get(0).trim());
            return ProcessHandle.of(pid).filter(ProcessHandle::isAlive).map(ProcessHandle::pid);
        } catch (IOException | RuntimeException e) {
            return Optional.empty();
        }
    }

    private void onStandby(String sql) {
        try (Connection c = connect(standbyPort, "postgres");
                Statement s = c.createStatement()) {
            s.execute(sql);
        } catch (SQLException e) {
            throw new IllegalStateException("on the standby, " + sql + ": " + e, e);
        }
    }

    private static long queryLong(int port, String sql) {
        try (Connection c = connect(port, "postgres");
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery(sql)) {
            rs.next();
            return rs.getLong(1);
        } catch (SQLException e) {
            throw new IllegalStateException(sql + ": " + e, e);
        }
    }

    private static Connection connect(int port, String database) throws SQLException {
        Properties p = new Properties();
        p.setProperty("user", "postgres");
        p.setProperty("connectTimeout", "3");
        return DriverManager.getConnection("jdbc:postgresql://127.0.0.1:" + port + "/" + database, p);
    }

    /** The end of each server's log, for a failure message. */
    private String logTails() {
        StringBuilder out = new StringBuilder();
        for (int n = 1; n <= nodes; n++) {
            Path log = home.resolve("node" + n + ".log");
            try {
                List<String> lines = Files.readAllLines(log, StandardCharsets.UTF_8);
                out.append("\n--- ").append(log).append(" (end) ---\n");
                lines.subList(Math.max(0, lines.size() - 20), lines.size())
                        .forEach(l -> out.append(l).append('\n'));
            } catch (IOException e) {
                // no log yet
            }
        }
        return out.toString();
    }

    private void asPostgres(String... command) throws IOException, InterruptedException {
        List<String> full = new ArrayList<>();
        if ("root".equals(System.getProperty("user.name"))) {
            full.addAll(List.of("runuser", "-u", OS_USER, "--"));
        }
        full.addAll(List.of(command));
        run(full.toArray(new String[0]));
    }

    private void run(String... command) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(command)
                .directory(home.toFile())
                .redirectErrorStream(true)
                .start();
        String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!p.waitFor(START_TIMEOUT_SECONDS * 2L, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new IOException(String.join(" ", command) + " did not finish: " + output);
        }
        if (p.exitValue() != 0) {
            throw new IOException(String.join(" ", command) + " exited with " + p.exitValue() + ": " + output);
        }
    }

    private static void append(Path file, String... lines) throws IOException {
        Files.writeString(file, "\n" + String.join("\n", lines) + "\n", StandardOpenOption.APPEND);
    }

    /** The newest {@code /usr/lib/postgresql/<version>/bin} with the server binaries, or {@code BATON_TEST_PG_BIN}. */
    static Optional<Path> binaries() {
        String configured = TestDatabases.trimToNull(System.getenv(BIN_VARIABLE));
        if (configured != null) {
            return Optional.of(Paths.get(configured)).filter(PostgresCluster::hasServerBinaries);
        }
        Path root = Paths.get("/usr/lib/postgresql");
        if (!Files.isDirectory(root)) {
            return Optional.empty();
        }
        try (Stream<Path> versions = Files.list(root)) {
            return versions.map(v -> v.resolve("bin"))
                    .filter(PostgresCluster::hasServerBinaries)
                    .max(Comparator.comparingInt(PostgresCluster::majorOf));
        } catch (IOException e) {
            return Optional.empty();
        }
    }

    private static int majorOf(Path bin) {
        try {
            return Integer.parseInt(bin.getParent().getFileName().toString());
        } catch (NumberFormatException e) {
            return 0;
        }
    }

    private static boolean hasServerBinaries(Path bin) {
        return Stream.of("initdb", "pg_ctl", "pg_basebackup", "postgres")
                .allMatch(name -> Files.isExecutable(bin.resolve(name)));
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }

    private static List<ProcessHandle> concat(ProcessHandle first, List<ProcessHandle> rest) {
        List<ProcessHandle> all = new ArrayList<>(rest.size() + 1);
        all.add(first);
        all.addAll(rest);
        return all;
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
