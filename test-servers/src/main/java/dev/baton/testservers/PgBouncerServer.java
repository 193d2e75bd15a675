package dev.baton.testservers;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A PgBouncer in transaction mode ({@code pool_mode = transaction}) on a free port of 127.0.0.1, in front of a
 * PostgreSQL server, started from the machine's {@code pgbouncer} binary (Debian package {@code pgbouncer}; {@code
 * BATON_TEST_PGBOUNCER} names another) with a configuration file in a fresh directory under {@code java.io.tmpdir},
 * stopped and deleted by {@link #close()} or the JVM's exit. A service the package may have started (port 6432) is
 * never used.
 *
 * <p>Clients log in as any user ({@code auth_type = any}); PgBouncer logs in to the server as the user the server
 * URL names, without a password. Each client transaction may run on another server connection: nothing a client sets
 * for its session outside a transaction is kept. Servers older than PgBouncer 1.21 know no protocol-level prepared
 * statements, so {@link #jdbcUrl(String)} carries {@code prepareThreshold=0}; from 1.21 on, {@code max_prepared_statements}
 * is set as well.
 *
 * <p>When the JVM runs as root, PgBouncer (which refuses to run as root) runs as the {@code postgres} operating-system
 * user ({@code runuser -u postgres --}), which owns the directory.
 */
public final class PgBouncerServer implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(PgBouncerServer.class);
    static final String BINARY_VARIABLE = "BATON_TEST_PGBOUNCER";
    static final String MISSING_BINARY = "pgbouncer not found in " + BINARY_VARIABLE + ", /usr/sbin or /usr/bin:"
            + " install it (Debian: apt-get install pgbouncer) to run the suites behind PgBouncer";
    private static final String OS_USER = "postgres";
    private static final int START_TIMEOUT_SECONDS = 15;
    /**
     * The server connections per database and user ({@code default_pool_size}): enough for the suites' concurrent
     * transactions (a lock holder and its waiters).
     */
    public static final int POOL_SIZE = 20;

    private final Path home;
    private final int port;
    private volatile Process process;
    private final List<String> command;
    private final String version;
    private final Thread cleanup;
    private boolean closed;

    private PgBouncerServer(Path home, int port, Process process, List<String> command, String version) {
        this.home = home;
        this.port = port;
        this.process = process;
        this.command = List.copyOf(command);
        this.version = version;
        this.cleanup = new Thread(this::stopAndDelete, "baton-pgbouncer-cleanup");
    }

    /**
     * Starts PgBouncer in transaction mode in front of a PostgreSQL server and waits until it accepts connections.
     *
     * @param binary the {@code pgbouncer} executable ({@link #binary()})
     * @param host the server's host
     * @param serverPort the server's port
     * @param user the user PgBouncer logs in to the server as (trust authentication on the server)
     * @return the running PgBouncer; the caller closes it
     * @throws IllegalStateException when it does not start; the message holds the end of its log
     */
    public static PgBouncerServer start(Path binary, String host, int serverPort, String user) {
        Path home;
        int port;
        try {
            home = Files.createTempDirectory("baton-pgbouncer-");
            port = freePort();
        } catch (IOException e) {
            throw new IllegalStateException("cannot make a directory for PgBouncer: " + e, e);
        }
        long started = System.nanoTime();
        boolean root = "root".equals(System.getProperty("user.name"));
        Process process = null;
        try {
            String version = version(binary);
            List<String> settings = new ArrayList<>(List.of(
                    "[databases]",
                    "* = host=" + host + " port=" + serverPort + " user=" + user,
                    "[pgbouncer]",
                    "listen_addr = 127.0.0.1",
                    "listen_port = " + port,
                    "unix_socket_dir =",
                    "auth_type = any",
                    "pool_mode = transaction",
                    "default_pool_size = " + POOL_SIZE,
                    "max_client_conn = 500",
                    // pgjdbc sends extra_float_digits at start-up; PgBouncer does not track it
                    "ignore_startup_parameters = extra_float_digits",
                    "server_check_delay = 0",
                    "logfile = " + home.resolve("pgbouncer.log"),
                    "pidfile = " + home.resolve("pgbouncer.pid")));
            if (supportsPreparedStatements(version)) {
                settings.add("max_prepared_statements = 200");
            }
            Path ini = home.resolve("pgbouncer.ini");
            Files.write(ini, settings, StandardCharsets.UTF_8);
            if (root) {
                run("chown", "-R", OS_USER + ":" + OS_USER, home.toString());
            }
            List<String> command = new ArrayList<>();
            if (root) {
                command.addAll(List.of("runuser", "-u", OS_USER, "--"));
            }
            command.addAll(List.of(binary.toString(), ini.toString()));
            process = new ProcessBuilder(command)
                    .directory(home.toFile())
                    .redirectErrorStream(true)
                    .redirectOutput(home.resolve("stdout.log").toFile())
                    .start();
            PgBouncerServer server = new PgBouncerServer(home, port, process, command, version);
            Runtime.getRuntime().addShutdownHook(server.cleanup);
            server.awaitListening();
            LOG.info("PgBouncer {} started in {} ms: {}", version, TestDatabases.millisSince(started), server);
            return server;
        } catch (Exception e) {
            String logs = logTail(home);
            if (process != null) {
                destroy(process);
            }
            deleteRecursively(home);
            throw new IllegalStateException("PgBouncer did not start: " + e + logs, e);
        }
    }

    /**
     * The JDBC URL of a database through PgBouncer, with {@code prepareThreshold=0}.
     *
     * @param database the server's database
     * @return the URL
     */
    public String jdbcUrl(String database) {
        return "jdbc:postgresql://127.0.0.1:" + port + "/" + database + "?prepareThreshold=0";
    }

    /**
     * {@code kill -9} of PgBouncer (its clients' connections and its server connections drop at once; the server
     * rolls back what was in flight), then, after {@code down}, PgBouncer again on the same port with the same
     * settings; returns once it listens.
     */
    public void killAndRestart(java.time.Duration down) {
        Process old = process;
        old.descendants().forEach(ProcessHandle::destroyForcibly);
        old.destroyForcibly();
        try {
            old.waitFor(5, TimeUnit.SECONDS);
            Thread.sleep(down.toMillis());
            Files.deleteIfExists(home.resolve("pgbouncer.pid"));
            process = new ProcessBuilder(command)
                    .directory(home.toFile())
                    .redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.appendTo(
                            home.resolve("stdout.log").toFile()))
                    .start();
            awaitListening();
        } catch (IOException e) {
            throw new IllegalStateException("PgBouncer did not restart: " + e + logTail(home), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }

    /** The port PgBouncer listens on. */
    public int port() {
        return port;
    }

    /** The version line of the binary, such as {@code PgBouncer 1.18.0}. */
    public String version() {
        return version;
    }

    /** Stops PgBouncer and deletes its directory. Idempotent. */
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
        return version + " (transaction mode) on 127.0.0.1:" + port + " in " + home;
    }

    /**
     * The {@code pgbouncer} executable: {@code BATON_TEST_PGBOUNCER}, else {@code /usr/sbin/pgbouncer} or {@code
     * /usr/bin/pgbouncer}.
     *
     * @return the executable, or empty when there is none
     */
    public static Optional<Path> binary() {
        String configured = TestDatabases.trimToNull(System.getenv(BINARY_VARIABLE));
        Stream<Path> candidates = configured != null
                ? Stream.of(Paths.get(configured))
                : Stream.of(Paths.get("/usr/sbin/pgbouncer"), Paths.get("/usr/bin/pgbouncer"));
        return candidates.filter(Files::isExecutable).findFirst();
    }

    /** True from PgBouncer 1.21, which keeps protocol-level prepared statements in transaction mode. */
    static boolean supportsPreparedStatements(String version) {
        java.util.regex.Matcher m =
                java.util.regex.Pattern.compile("(\\d+)\\.(\\d+)").matcher(version);
        if (!m.find()) {
            return false;
        }
        int major = Integer.parseInt(m.group(1));
        int minor = Integer.parseInt(m.group(2));
        return major > 1 || (major == 1 && minor >= 21);
    }

    // ---------------------------------------------------------------------------------------------------------

    private void awaitListening() throws IOException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(START_TIMEOUT_SECONDS);
        while (true) {
            if (!process.isAlive()) {
                throw new IOException("pgbouncer exited with " + process.exitValue());
            }
            try (Socket s = new Socket()) {
                s.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 200);
                return;
            } catch (IOException e) {
                if (System.nanoTime() > deadline) {
                    throw new IOException(
                            "pgbouncer does not listen on " + port + " after " + START_TIMEOUT_SECONDS + " s");
                }
                sleep(20);
            }
        }
    }

    private void stopAndDelete() {
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
        }
        destroy(process);
        deleteRecursively(home);
    }

    /** Ends {@code runuser} and PgBouncer under it, and waits for them (a few seconds at most). */
    private static void destroy(Process process) {
        List<ProcessHandle> children = process.descendants().toList();
        children.forEach(ProcessHandle::destroy);
        process.destroy();
        try {
            if (!process.waitFor(5, TimeUnit.SECONDS)) {
                process.destroyForcibly();
            }
            for (ProcessHandle child : children) {
                child.onExit().get(5, TimeUnit.SECONDS);
            }
        } catch (Exception e) {
            children.forEach(ProcessHandle::destroyForcibly);
            LOG.debug("stopping PgBouncer: {}", e.toString());
        }
    }

    private static String version(Path binary) throws IOException, InterruptedException {
        String output = run(binary.toString(), "--version");
        return output.lines().findFirst().orElse("PgBouncer").trim();
    }

    private static String run(String... command) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!p.waitFor(START_TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new IOException(String.join(" ", command) + " did not finish: " + output);
        }
        if (p.exitValue() != 0) {
            throw new IOException(String.join(" ", command) + " exited with " + p.exitValue() + ": " + output);
        }
        return output;
    }

    private static String logTail(Path home) {
        StringBuilder out = new StringBuilder();
        for (String name : List.of("pgbouncer.log", "stdout.log")) {
            try {
                List<String> lines = Files.readAllLines(home.resolve(name), StandardCharsets.UTF_8);
                out.append("\n--- ").append(name).append(" (end) ---\n");
                lines.subList(Math.max(0, lines.size() - 20), lines.size())
                        .forEach(l -> out.append(l).append('\n'));
            } catch (IOException e) {
                // no log
            }
        }
        return out.toString();
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
