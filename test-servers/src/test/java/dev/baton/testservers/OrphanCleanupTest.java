package dev.baton.testservers;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/** An embedded MariaDB left running by a JVM killed with -9 is stopped and removed by the next start. */
class OrphanCleanupTest {

    @Test
    void theNextStartStopsTheServerOfAKilledJvm() throws Exception {
        Path dir;
        long serverPid;
        try (JvmProcess child = JvmProcess.start(EmbeddedMariaDbMain.class)) {
            child.awaitLine(line -> line.startsWith("READY "), Duration.ofSeconds(120))
                    .orElseThrow(() -> new AssertionError("child did not start MariaDB: " + child.output()));
            dir = directoryOwnedBy(child.pid());
            serverPid =
                    Long.parseLong(Files.readString(dir.resolve("mariadbd.pid")).trim());
            child.kill();
        }
        // kill -9 runs no shutdown hook: the directory is still there (and maybe the server)
        assertTrue(Files.isDirectory(dir), dir::toString);

        EmbeddedServers.removeOrphanedMariaDbDirectories();

        long deadline = System.nanoTime() + Duration.ofSeconds(15).toNanos();
        while (ProcessHandle.of(serverPid).map(ProcessHandle::isAlive).orElse(false) && System.nanoTime() < deadline) {
            Thread.sleep(100);
        }
        assertFalse(ProcessHandle.of(serverPid).map(ProcessHandle::isAlive).orElse(false), "server still runs");
        assertFalse(Files.exists(dir), dir + " still exists");
    }

    private static Path directoryOwnedBy(long pid) throws Exception {
        try (Stream<Path> dirs = Files.list(EmbeddedServers.userDirectory())) {
            List<Path> owned = dirs.filter(dir -> dir.getFileName().toString().startsWith("baton-mariadb-"))
                    .filter(dir -> {
                        try {
                            return Files.readString(dir.resolve("owner.pid"))
                                    .trim()
                                    .equals(Long.toString(pid));
                        } catch (Exception e) {
                            return false;
                        }
                    })
                    .collect(Collectors.toList());
            assertEquals(1, owned.size(), owned::toString);
            return owned.get(0);
        }
    }
}
