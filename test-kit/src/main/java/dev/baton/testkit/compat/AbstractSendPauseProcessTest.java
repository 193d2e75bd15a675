package dev.baton.testkit.compat;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.baton.testkit.DatabaseSuite;
import dev.baton.testservers.JvmProcess;
import dev.baton.testservers.TestDatabase;
import java.io.IOException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The pause suite: a worker JVM is stopped with {@code SIGSTOP} at one step of the send protocol and
 * continued ({@code SIGCONT}) after its lease, while a healthy worker JVM sweeps, reconciles and sends; both send to
 * a plain sink (every call recorded) and a fenced one ({@link SendPauseWorkerMain}). A double is a row the sink
 * recorded twice. The fenced sink must record none; the plain sink none outside the residual window (a pause between
 * the last check and the call, longer than the lease and the quarantine), where each double is printed. The figures
 * are printed as {@code PAUSE-SUITE server=… step=… pause=… sends=… doubles_fenced=… doubles_plain=…}.
 *
 * <p>Lease 2 s, send timeout 900 ms, margin 100 ms: an unknown send's quarantine ends 1 s after its lease. A short
 * pause (2.3 s) wakes the sender after its lease and inside the quarantine (with 0.7 s to spare for a loaded machine
 * to schedule the resumed JVM), a long one (5 s) after both.
 */
public abstract class AbstractSendPauseProcessTest extends DatabaseSuite {
    private static final long LEASE_MILLIS = 2000;
    private static final long SEND_TIMEOUT_MILLIS = 900;
    private static final int ROWS = 4;

    private TestDatabase db;
    private JobsTable jobs;

    @Override
    protected void setUp() {
        db = database();
    }

    @BeforeEach
    void tables() {
        jobs = JobsTable.create(db, "spause", true);
        db.execute("CREATE TABLE " + jobs.name() + "_sink (row_id BIGINT NOT NULL, token BIGINT NOT NULL,"
                + " process VARCHAR(20) NOT NULL, sink VARCHAR(10) NOT NULL)");
        db.execute("CREATE TABLE " + jobs.name() + "_fence (row_id BIGINT NOT NULL PRIMARY KEY, high BIGINT NOT NULL)");
        db.execute("CREATE TABLE " + jobs.name() + "_go (go INT NOT NULL)");
        for (int id = 1; id <= ROWS; id++) {
            db.execute("INSERT INTO " + jobs.name() + "_fence (row_id, high) VALUES (" + id + ", 0)");
        }
    }

    @AfterEach
    void drop() {
        for (String suffix : List.of("_sink", "_fence", "_go")) {
            db.dropTableIfExists(jobs.name() + suffix);
        }
        jobs.drop();
    }

    private JvmProcess worker(String role, String step, String process) throws IOException {
        return JvmProcess.builder(SendPauseWorkerMain.class)
                .name(process)
                .jvmArgs("-Xmx128m", "-XX:TieredStopAtLevel=1", "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn")
                .args(
                        db.jdbcUrl(),
                        db.user(),
                        db.password() == null || db.password().isEmpty() ? "-" : db.password(),
                        jobs.name(),
                        String.valueOf(LEASE_MILLIS),
                        String.valueOf(SEND_TIMEOUT_MILLIS),
                        role,
                        step,
                        process)
                .start();
    }

    private static void signal(JvmProcess p, String signal) throws IOException, InterruptedException {
        Process kill = new ProcessBuilder("kill", "-" + signal, String.valueOf(p.pid()))
                .inheritIO()
                .start();
        assertEquals(0, kill.waitFor(), "kill -" + signal + " " + p.pid());
    }

    @ParameterizedTest(name = "{0}, paused {1} ms")
    @CsvSource({
        "before-mark, 5000",
        "after-mark, 5000",
        "in-send, 2300",
        "in-send, 5000",
        "after-send, 5000",
    })
    void aWorkerPausedPastItsLeaseSendsNoRowTwiceOutsideTheResidualWindow(String step, long pauseMillis)
            throws Exception {
        List<String> victimLines;
        List<String> healthyLines;
        try (JvmProcess victim = worker("victim", step, "victim");
                JvmProcess healthy = worker("healthy", "none", "healthy")) {
            assertTrue(victim.awaitLine("READY"::equals, Duration.ofSeconds(60)).isPresent(), tail(victim));
            assertTrue(
                    healthy.awaitLine("READY"::equals, Duration.ofSeconds(60)).isPresent(), tail(healthy));
            jobs.insert(1, ROWS, Payment.PAID);
            assertTrue(
                    victim.awaitLine(("AT " + step)::equals, Duration.ofSeconds(30))
                            .isPresent(),
                    "the victim reached " + step + ": " + tail(victim));
            signal(victim, "STOP");
            long stopped = System.nanoTime();
            db.execute("INSERT INTO " + jobs.name() + "_go (go) VALUES (1)"); // the healthy worker starts claiming
            long left = pauseMillis - TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - stopped);
            Thread.sleep(Math.max(0, left));
            signal(victim, "CONT");
            assertTrue(
                    victim.awaitLine("RESUMED"::equals, Duration.ofSeconds(30)).isPresent(),
                    "the victim resumed: " + tail(victim));
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (jobs.countBySync().getOrDefault(Sync.COMPLETED, 0) < ROWS) {
                assertTrue(System.nanoTime() < deadline, "every row completed: " + jobs.countBySync() + tail(healthy));
                Thread.sleep(50);
            }
            Thread.sleep(1000); // for a late call of the victim to land
            victimLines = victim.outputLines();
            healthyLines = healthy.outputLines();
        }
        Map<Long, List<String>> plain = calls("plain");
        Map<Long, List<String>> fenced = calls("fenced");
        List<String> doublesPlain = doubles(plain);
        List<String> doublesFenced = doubles(fenced);
        int sends = plain.values().stream().mapToInt(List::size).sum();
        System.out.println("PAUSE-SUITE server=" + db.name() + " step=" + step + " pause=" + pauseMillis + "ms sends="
                + sends + " doubles_fenced=" + doublesFenced.size() + " doubles_plain=" + doublesPlain.size()
                + (doublesPlain.isEmpty() ? "" : " plain_doubles=" + doublesPlain));
        assertEquals(ROWS, plain.size(), "every row reached the plain sink");
        assertEquals(ROWS, fenced.size(), "every row reached the fenced sink");
        assertEquals(List.of(), doublesFenced, "the fenced sink refuses the paused sender's late call");
        boolean residualWindow = step.equals("in-send") && pauseMillis >= LEASE_MILLIS + 2 * SEND_TIMEOUT_MILLIS;
        if (residualWindow) {
            // the stated residual window: paused after its last check, woken after the lease and the quarantine
            assertTrue(doublesPlain.size() <= 1, "only the paused row: " + doublesPlain);
        } else {
            assertEquals(
                    List.of(),
                    doublesPlain,
                    "no double outside the residual window; victim:\n" + String.join("\n", victimLines) + "\nhealthy:\n"
                            + String.join("\n", healthyLines));
        }
    }

    /** The calls each sink recorded, by row: {@code token/process}. */
    private Map<Long, List<String>> calls(String sink) throws SQLException {
        Map<Long, List<String>> out = new TreeMap<>();
        try (Connection c = db.connect();
                PreparedStatement ps = c.prepareStatement("SELECT row_id, token, process FROM " + jobs.name()
                        + "_sink WHERE sink = ? ORDER BY row_id, token")) {
            ps.setString(1, sink);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    out.computeIfAbsent(rs.getLong(1), k -> new ArrayList<>())
                            .add("token " + rs.getLong(2) + " by " + rs.getString(3));
                }
            }
        }
        return out;
    }

    private static List<String> doubles(Map<Long, List<String>> calls) {
        List<String> out = new ArrayList<>();
        calls.forEach((id, list) -> {
            if (list.size() > 1) {
                out.add("row " + id + ": " + list);
            }
        });
        return out;
    }

    private static String tail(JvmProcess p) {
        List<String> lines = p.outputLines();
        return "\n" + String.join("\n", lines.subList(Math.max(0, lines.size() - 30), lines.size()));
    }
}
