package dev.baton.testservers;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Root and an ordinary user run the embedded servers on one machine, in either order. Each user's files go
 * to a directory of their own under {@code java.io.tmpdir}; a lock file root left there no longer stops anyone.
 */
class PerUserDirectoryTest {
    private static final String ORDINARY_USER = "nobody";

    @Test
    void eachUserHasADirectoryOfItsOwnThatNobodyElseMayHaveMade(@TempDir Path tmp) throws IOException {
        String me = System.getProperty("user.name");
        Path mine = EmbeddedServers.userDirectory(tmp, me);
        assertEquals(tmp.resolve("baton-" + me), mine);
        assertEquals("rwx------", PosixFilePermissions.toString(Files.getPosixFilePermissions(mine)));
        assertEquals(mine, EmbeddedServers.userDirectory(tmp, me), "found again, not made twice");

        // the directory of another user name exists, but belongs to this JVM's user: refused with the reason
        Files.createDirectory(tmp.resolve("baton-someone"));
        IOException e = assertThrows(IOException.class, () -> EmbeddedServers.userDirectory(tmp, "someone"));
        assertTrue(e.getMessage().contains("belongs to " + me + ", not to someone"), e.getMessage());
    }

    @Test
    void anOrdinaryUserStartsTheEmbeddedServersAfterRootAndRootAfterIt(@TempDir Path tmp) throws Exception {
        Assumptions.assumeTrue(
                "root".equals(System.getProperty("user.name")),
                "runs as root only (it starts a JVM as user '" + ORDINARY_USER + "'); the per-user directory test"
                        + " above covers the rule elsewhere");
        Assumptions.assumeTrue(
                Files.isExecutable(Paths.get("/usr/sbin/runuser")) || Files.isExecutable(Paths.get("/sbin/runuser")),
                "runuser is not installed: cannot start a JVM as another user");
        Assumptions.assumeTrue(
                run(List.of("id", ORDINARY_USER), Duration.ofSeconds(10)).exit() == 0,
                "no user '" + ORDINARY_USER + "' on this machine");

        // root first: its embedded servers are up and its lock files are in place
        TestDatabases.mariadbEmbedded();
        TestDatabases.postgresEmbedded();

        Path classpath = readableClasspath(tmp);
        String java = Paths.get(System.getProperty("java.home"), "bin", "java").toString();
        Result asUser = run(
                List.of(
                        runuser(),
                        "-u",
                        ORDINARY_USER,
                        "--",
                        java,
                        "-Djava.io.tmpdir=" + System.getProperty("java.io.tmpdir"),
                        "-cp",
                        Files.readString(classpath),
                        EmbeddedServersMain.class.getName()),
                Duration.ofMinutes(4));
        assertEquals(0, asUser.exit(), asUser.output());
        assertTrue(asUser.output().contains("OK mariadb-embedded as " + ORDINARY_USER), asUser.output());
        assertTrue(asUser.output().contains("OK postgres-embedded as " + ORDINARY_USER), asUser.output());

        // and root again, after the ordinary user
        try (JvmProcess asRoot = JvmProcess.start(EmbeddedServersMain.class)) {
            assertTrue(asRoot.waitFor(Duration.ofMinutes(4)), asRoot.output());
            assertEquals(0, asRoot.exitValue(), asRoot.output());
            assertTrue(asRoot.output().contains("OK mariadb-embedded as root"), asRoot.output());
        }
    }

    /**
     * This JVM's class path, readable by another user: jars under a private directory (such as {@code ~/.m2} of
     * root) are hard-linked (or copied) into a world-readable one; class directories are used where they are.
     * Returns a file that holds the path.
     */
    private static Path readableClasspath(Path tmp) throws IOException {
        Path jars = Files.createDirectories(tmp.resolve("jars"));
        for (Path dir : List.of(tmp, jars)) {
            Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwxr-xr-x"));
        }
        List<String> entries = new ArrayList<>();
        int n = 0;
        for (String entry : System.getProperty("java.class.path").split(Pattern.quote(File.pathSeparator))) {
            if (entry.isEmpty()) {
                continue;
            }
            Path source = Paths.get(entry).toAbsolutePath();
            if (Files.isDirectory(source)) {
                entries.add(source.toString());
                continue;
            }
            Path target = jars.resolve((n++) + "-" + source.getFileName());
            try {
                Files.createLink(target, source);
            } catch (IOException | UnsupportedOperationException e) {
                Files.copy(source, target);
            }
            Files.setPosixFilePermissions(target, PosixFilePermissions.fromString("rw-r--r--"));
            entries.add(target.toString());
        }
        Path file = tmp.resolve("classpath.txt");
        Files.writeString(file, String.join(File.pathSeparator, entries));
        return file;
    }

    private static String runuser() {
        return Files.isExecutable(Paths.get("/usr/sbin/runuser")) ? "/usr/sbin/runuser" : "/sbin/runuser";
    }

    private record Result(int exit, String output) {}

    private static Result run(List<String> command, Duration timeout) throws IOException, InterruptedException {
        Path log = Files.createTempFile("baton-run", ".log");
        try {
            Process process = new ProcessBuilder(command)
                    .redirectErrorStream(true)
                    .redirectOutput(log.toFile())
                    .start();
            boolean exited = process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS);
            if (!exited) {
                process.destroyForcibly();
            }
            String output = Files.readString(log, StandardCharsets.UTF_8);
            return exited ? new Result(process.exitValue(), output) : new Result(-1, "timed out: " + output);
        } finally {
            Files.deleteIfExists(log);
        }
    }
}
