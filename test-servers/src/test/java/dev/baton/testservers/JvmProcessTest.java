package dev.baton.testservers;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class JvmProcessTest {

    @Test
    void runsAMainClassOfTheTestClasspathAndCapturesItsOutput() throws Exception {
        List<String> seen = new CopyOnWriteArrayList<>();
        try (JvmProcess process = JvmProcess.builder(EchoMain.class)
                .args("one", "two words")
                .env("BATON_ECHO", "hello")
                .onLine(seen::add)
                .start()) {
            assertNotEquals(ProcessHandle.current().pid(), process.pid());
            assertTrue(process.waitFor(Duration.ofSeconds(60)), process::output);
            assertFalse(process.isAlive());
            assertEquals(2, process.exitValue());
            assertEquals(List.of("arg:one", "arg:two words", "env:hello", "to stderr"), process.outputLines());
            assertEquals(process.outputLines(), seen);
        }
    }

    @Test
    void killEndsTheProcessLikeACrash() throws Exception {
        try (JvmProcess process = JvmProcess.start(SleeperMain.class)) {
            String ready = process.awaitLine(line -> line.startsWith("READY"), Duration.ofSeconds(60))
                    .orElseThrow(() -> new AssertionError("no READY line: " + process.output()));
            assertEquals("READY pid=" + process.pid(), ready);
            assertTrue(process.isAlive());
            long started = System.nanoTime();
            process.kill();
            assertFalse(process.isAlive());
            assertFalse(
                    ProcessHandle.of(process.pid()).map(ProcessHandle::isAlive).orElse(false));
            assertEquals(137, process.exitValue(), "killed by SIGKILL");
            assertTrue(TestDatabases.millisSince(started) < 5_000);
        }
    }

    @Test
    void closeKillsARunningProcess() throws Exception {
        JvmProcess process = JvmProcess.start(SleeperMain.class);
        process.awaitLine(line -> line.startsWith("READY"), Duration.ofSeconds(60))
                .orElseThrow();
        process.close();
        assertFalse(process.isAlive());
    }

    @Test
    void runsInAnotherWorkingDirectory(@TempDir Path directory) throws Exception {
        try (JvmProcess process = JvmProcess.builder(EchoMain.class)
                .directory(directory)
                .jvmArgs("-Xmx64m")
                .name("echo-elsewhere")
                .start()) {
            assertTrue(process.waitFor(Duration.ofSeconds(60)), process::output);
            assertEquals(0, process.exitValue(), process::output);
            assertTrue(process.toString().contains("echo-elsewhere"), process.toString());
        }
    }

    @Test
    void awaitLineGivesUpWhenTheProcessEnds() throws Exception {
        try (JvmProcess process = JvmProcess.start(EchoMain.class)) {
            assertTrue(
                    process.awaitLine("never"::equals, Duration.ofSeconds(60)).isEmpty());
            assertTrue(process.waitFor(Duration.ofSeconds(30)));
        }
    }

    @Test
    void anotherJvmReachesTheEmbeddedPostgresOverTcp() throws Exception {
        TestDatabase db = TestDatabases.postgresEmbedded();
        try (JvmProcess process = JvmProcess.start(QueryMain.class, db.jdbcUrl(), db.user())) {
            assertTrue(process.waitFor(Duration.ofSeconds(60)), process::output);
            assertEquals(0, process.exitValue(), process::output);
            assertTrue(process.outputLines().contains("answer:42"), process::output);
        }
    }

    @Test
    void anotherJvmReachesTheEmbeddedMariaDbOverTcp() throws Exception {
        TestDatabase db = TestDatabases.mariadbEmbedded();
        try (JvmProcess process = JvmProcess.start(QueryMain.class, db.jdbcUrl(), db.user(), db.password())) {
            assertTrue(process.waitFor(Duration.ofSeconds(60)), process::output);
            assertEquals(0, process.exitValue(), process::output);
            assertTrue(process.outputLines().contains("answer:42"), process::output);
        }
    }
}
