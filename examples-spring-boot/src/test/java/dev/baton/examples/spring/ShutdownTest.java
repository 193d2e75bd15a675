package dev.baton.examples.spring;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The example as the README starts it (embedded PostgreSQL), stopped the way a user stops it (SIGTERM, as
 * Ctrl-C's SIGINT, runs the JVM's shutdown hooks): the workers stop, the pool closes, then the server goes, so the
 * stop is quick and logs no warning. The embedded server's own shutdown hook used to stop it first, at once, while
 * the workers still polled (its log line came before the pool's); a newcomer saw about 150 lines of lost-connection
 * warnings and a 10 s stop (the workers' shutdown timeout) from it.
 */
class ShutdownTest {
    @Test
    void stoppingTheApplicationStopsTheWorkersBeforeTheEmbeddedDatabaseQuicklyAndWithoutWarnings(@TempDir Path dir)
            throws Exception {
        Path log = dir.resolve("out.txt");
        Process app = new ProcessBuilder(
                        Paths.get(System.getProperty("java.home"), "bin", "java")
                                .toString(),
                        "-cp",
                        System.getProperty("java.class.path"),
                        PaymentApplication.class.getName(),
                        "--server.port=0",
                        "--spring.main.banner-mode=off")
                .redirectErrorStream(true)
                .redirectOutput(log.toFile())
                .start();
        try {
            long deadline = System.nanoTime() + Duration.ofSeconds(90).toNanos();
            while (!read(log).contains("Started PaymentApplication")) {
                assertTrue(app.isAlive(), "the application exited:\n" + read(log));
                assertTrue(System.nanoTime() < deadline, "not started within 90 s:\n" + read(log));
                Thread.sleep(100);
            }
            Thread.sleep(1_000); // the workers poll
            int before = read(log).length();
            long signalled = System.nanoTime();
            app.destroy(); // SIGTERM
            assertTrue(app.waitFor(30, TimeUnit.SECONDS), "still running 30 s after SIGTERM");
            long stopMillis = (System.nanoTime() - signalled) / 1_000_000;
            String shutdown = read(log).substring(before);
            List<String> warnings = shutdown.lines()
                    .filter(line -> line.contains("WARN") || line.contains("ERROR") || line.contains("Exception"))
                    .toList();
            int poolClosed = shutdown.indexOf("HikariPool-1 - Shutdown completed");
            int serverStopped = shutdown.indexOf("shut down postmaster");
            assertTrue(
                    poolClosed >= 0 && serverStopped > poolClosed,
                    "the pool closes (after the workers), then the server stops:\n" + shutdown);
            assertEquals(List.of(), warnings, "logged while stopping:\n" + shutdown);
            assertTrue(stopMillis < 5_000, "stopped in " + stopMillis + " ms:\n" + shutdown);
        } finally {
            app.destroyForcibly();
        }
    }

    private static String read(Path log) throws IOException {
        return Files.exists(log) ? Files.readString(log, StandardCharsets.UTF_8) : "";
    }
}
