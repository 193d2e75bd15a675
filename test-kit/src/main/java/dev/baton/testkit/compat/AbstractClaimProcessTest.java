package dev.baton.testkit.compat;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.baton.Baton;
import dev.baton.BatonListener;
import dev.baton.ClaimQueue;
import dev.baton.Outcome;
import dev.baton.Worker;
import dev.baton.testkit.DatabaseSuite;
import dev.baton.testservers.DatabaseKind;
import dev.baton.testservers.JvmProcess;
import dev.baton.testservers.TestDatabase;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Exactly once across processes and crashes: worker JVMs started by the test coordinate only through the database;
 * their printed histories (handler calls and committed completions) are checked for double claims, double
 * completions and lost rows, and the table is checked as ground truth.
 */
public abstract class AbstractClaimProcessTest extends DatabaseSuite {
    private TestDatabase db;
    private JobsTable jobs;

    @Override
    protected void setUp() {
        db = database();
    }

    @BeforeEach
    void table() {
        jobs = JobsTable.create(db, "proc", true);
    }

    @AfterEach
    void drop() {
        jobs.drop();
    }

    private JvmProcess worker(int threads, int batch, int leaseSeconds, int sleepMillis, String... mode)
            throws Exception {
        List<String> args = new ArrayList<>(List.of(
                db.jdbcUrl(),
                db.user(),
                db.password() == null || db.password().isEmpty() ? "-" : db.password(),
                jobs.name(),
                String.valueOf(threads),
                String.valueOf(batch),
                String.valueOf(leaseSeconds),
                String.valueOf(sleepMillis)));
        args.addAll(List.of(mode));
        return JvmProcess.builder(ClaimWorkerMain.class)
                .jvmArgs("-Xmx256m", "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn")
                .args(args.toArray(new String[0]))
                .start();
    }

    private static Map<Long, Integer> count(List<String> lines, String prefix) {
        Map<Long, Integer> out = new HashMap<>();
        for (String l : lines) {
            if (l.startsWith(prefix + " ")) {
                out.merge(Long.parseLong(l.split(" ")[1]), 1, Integer::sum);
            }
        }
        return out;
    }

    @Test
    void twoProcessesCompleteEveryRowExactlyOnce() throws Exception {
        int rows = 20_000;
        jobs.insert(1, rows, Payment.PAID);
        List<String> lines = new ArrayList<>();
        try (JvmProcess a = worker(8, 10, 60, 0);
                JvmProcess b = worker(8, 10, 60, 0)) {
            assertTrue(a.waitFor(Duration.ofMinutes(5)), "process A finished: " + tail(a));
            assertTrue(b.waitFor(Duration.ofMinutes(5)), "process B finished: " + tail(b));
            assertEquals(0, a.exitValue(), tail(a));
            assertEquals(0, b.exitValue(), tail(b));
            assertTrue(a.outputLines().contains("FINISHED"));
            lines.addAll(a.outputLines());
            int fromA = count(a.outputLines(), "D").size();
            lines.addAll(b.outputLines());
            int fromB = count(b.outputLines(), "D").size();
            assertTrue(fromA > 0 && fromB > 0, "both processes worked: " + fromA + " / " + fromB);
            System.out.println("two processes on " + db.name() + ": " + rows + " rows, A completed " + fromA
                    + ", B completed " + fromB);
        }
        Map<Long, Integer> handled = count(lines, "H");
        Map<Long, Integer> done = count(lines, "D");
        assertEquals(rows, done.size(), "no row lost");
        assertEquals(rows, handled.size());
        assertEquals(0, done.values().stream().filter(n -> n > 1).count(), "no row completed twice");
        assertEquals(0, handled.values().stream().filter(n -> n > 1).count(), "no row claimed twice");
        assertEquals(Map.of(Sync.COMPLETED, rows), jobs.countBySync());
        assertEquals(rows, countWhere("attempts = 1"), "every row claimed once");
    }

    @Test
    void aKilledWorkerLosesNoRow() throws Exception {
        int rows = 600;
        jobs.insert(1, rows, Payment.PAID);
        List<String> aLines;
        try (JvmProcess a = worker(2, 50, 3, 20)) {
            assertTrue(
                    a.awaitLine(l -> l.startsWith("D "), Duration.ofSeconds(60)).isPresent(), tail(a));
            Thread.sleep(300); // mid-batch: rows are claimed, some handled, some committed
            a.kill(); // kill -9
            a.waitFor(Duration.ofSeconds(10));
            aLines = new ArrayList<>(a.outputLines());
        }
        Map<Sync, Integer> afterKill = jobs.countBySync();
        assertTrue(afterKill.getOrDefault(Sync.PROCESSING, 0) > 0, "the kill left claimed rows: " + afterKill);
        List<String> bLines;
        try (JvmProcess b = worker(2, 50, 3, 0)) {
            assertTrue(b.waitFor(Duration.ofMinutes(2)), tail(b));
            bLines = b.outputLines();
        }
        assertEquals(Map.of(Sync.COMPLETED, rows), jobs.countBySync(), "every row completed after the lease expired");
        Map<Long, Integer> doneA = count(aLines, "D");
        Map<Long, Integer> doneB = count(bLines, "D");
        for (Long id : doneA.keySet()) {
            assertTrue(!doneB.containsKey(id), "row " + id + " completed by both processes");
        }
        Map<Long, Integer> handledA = count(aLines, "H");
        int reclaimed = 0;
        for (Long id : handledA.keySet()) {
            if (!doneA.containsKey(id) && doneB.containsKey(id)) {
                reclaimed++;
            }
        }
        System.out.println("kill -9 on " + db.name() + ": A completed " + doneA.size() + ", B completed " + doneB.size()
                + ", of which " + reclaimed + " were in A's hands when it died");
        assertTrue(countWhere("attempts >= 2") > 0, "B reclaimed rows whose lease expired");
    }

    @Test
    void aWorkerKilledAfterRecordingASendNeverCausesASecondSend() throws Exception {
        int rows = 40;
        jobs.insert(1, rows, Payment.PAID);
        List<String> aLines;
        try (JvmProcess a = worker(2, 5, 3, 600_000, "sending")) { // sends, then hangs in the call
            for (int i = 0; i < 300 && JobsTableCounts.sends(a.outputLines()) < 2; i++) {
                Thread.sleep(100);
            }
            a.kill(); // kill -9 right after the external calls went out, before any completion
            a.waitFor(Duration.ofSeconds(10));
            aLines = new ArrayList<>(a.outputLines());
        }
        Map<Long, Integer> sentByA = count(aLines, "SEND");
        assertTrue(sentByA.size() >= 2, "A sent before it died: " + sentByA);
        List<String> bLines;
        try (JvmProcess b = worker(2, 5, 3, 0, "sending")) {
            assertTrue(b.waitFor(Duration.ofMinutes(2)), tail(b));
            bLines = b.outputLines();
        }
        ClaimQueue<Sync> queue =
                JobsTable.sendingQueue(Baton.using(db.dataSource()), jobs.name(), Duration.ofSeconds(3));
        for (int i = 0; i < 100 && jobs.countBySync().getOrDefault(Sync.SENDING, 0) > 0; i++) {
            queue.reclaimExpired(); // A's expired SENDING rows become UNKNOWN, never PENDING
            Thread.sleep(100);
        }
        Map<Long, Integer> sentByB = count(bLines, "SEND");
        for (Long id : sentByA.keySet()) {
            assertTrue(!sentByB.containsKey(id), "row " + id + " was sent again after its sender died");
            assertEquals(Sync.UNKNOWN, jobs.sync(id), "row " + id + " waits for reconciliation");
        }
        assertEquals(rows, sentByA.size() + sentByB.size(), "every row sent exactly once: " + sentByA + " " + sentByB);
        // reconciliation: the sink has A's records, so they are completed, not sent again
        for (Long id : sentByA.keySet()) {
            assertTrue(queue.unknownSends()
                    .resolveSent(id, Outcome.<Sync>complete(Sync.COMPLETED).set("third_party_guid", "reconciled"))
                    .done());
        }
        assertEquals(Map.of(Sync.COMPLETED, rows), jobs.countBySync());
        System.out.println("kill -9 after SENDING on " + db.name() + ": A sent " + sentByA.size() + ", B sent "
                + sentByB.size() + ", 0 sent twice, " + sentByA.size() + " reconciled");
    }

    /** Counting helpers over process output. */
    private static final class JobsTableCounts {
        static int sends(List<String> lines) {
            return (int) lines.stream().filter(l -> l.startsWith("SEND ")).count();
        }
    }

    @Test
    void terminatedConnectionsLoseNothingAndDoNotStopTheWorker() throws Exception {
        int rows = 3000;
        jobs.insert(1, rows, Payment.PAID);
        String appName = "baton_victim_" + jobs.name();
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(db.jdbcUrl());
        config.setUsername(db.user());
        config.setPassword(db.password());
        config.setMaximumPoolSize(12);
        if (db.kind() == DatabaseKind.POSTGRES) {
            config.addDataSourceProperty("ApplicationName", appName);
        }
        Map<Object, Integer> done = new ConcurrentHashMap<>();
        AtomicInteger kills = new AtomicInteger();
        AtomicBoolean stop = new AtomicBoolean();
        try (HikariDataSource ds = new HikariDataSource(config)) {
            Baton baton = Baton.builder(ds)
                    .listener(new BatonListener() {
                        @Override
                        public void onOutcome(String queue, Object id, Outcome.Kind kind, Enum<?> state, int attempt) {
                            done.merge(id, 1, Integer::sum);
                        }
                    })
                    .build();
            ClaimQueue<Sync> queue = JobsTable.queue(baton, jobs.name(), Duration.ofSeconds(3));
            List<Worker> workers = new ArrayList<>();
            for (int i = 0; i < 4; i++) {
                workers.add(baton.worker(queue)
                        .batchSize(10)
                        .pollInterval(Duration.ofMillis(10), Duration.ofMillis(100))
                        .heartbeat(Duration.ofMillis(500))
                        .handle(row -> Outcome.<Sync>complete(Sync.COMPLETED).set("third_party_guid", "k"))
                        .start());
            }
            Thread killer = new Thread(() -> {
                while (!stop.get()) {
                    kills.addAndGet(killConnections(appName));
                    try {
                        Thread.sleep(40);
                    } catch (InterruptedException e) {
                        return;
                    }
                }
            });
            killer.start();
            try {
                for (int i = 0; i < 1200 && jobs.countBySync().getOrDefault(Sync.COMPLETED, 0) < rows; i++) {
                    if (i == 50) {
                        stop.set(true); // 5 s of killing, then let the leases of orphaned claims expire
                    }
                    Thread.sleep(100);
                }
            } finally {
                stop.set(true);
                killer.join();
            }
            for (Worker w : workers) {
                assertTrue(w.isRunning(), "the worker survived the terminated connections");
                w.close();
            }
        }
        System.out.println("terminated connections on " + db.name() + ": " + kills.get() + " kills, " + done.size()
                + " completions observed");
        assertTrue(kills.get() > 0, "the test terminated connections");
        assertEquals(Map.of(Sync.COMPLETED, rows), jobs.countBySync(), "no row lost");
        assertEquals(0, done.values().stream().filter(n -> n > 1).count(), "no row completed twice");
    }

    private int killConnections(String appName) {
        int killed = 0;
        try (Connection c = db.connect();
                Statement s = c.createStatement()) {
            if (db.kind() == DatabaseKind.POSTGRES) {
                try (ResultSet rs = s.executeQuery("SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
                        + " WHERE application_name = '" + appName + "' AND state <> 'idle'")) {
                    while (rs.next()) {
                        killed++;
                    }
                }
            } else {
                List<Long> ids = new ArrayList<>();
                try (PreparedStatement ps = c.prepareStatement("SELECT ID FROM information_schema.PROCESSLIST"
                        + " WHERE ID <> CONNECTION_ID() AND INFO LIKE ?")) {
                    // only Baton's statements quote the table name with backticks; the test's own queries do not
                    ps.setString(1, "%`" + jobs.name() + "`%");
                    try (ResultSet rs = ps.executeQuery()) {
                        while (rs.next()) {
                            ids.add(rs.getLong(1));
                        }
                    }
                }
                for (Long id : ids) {
                    try {
                        s.execute("KILL CONNECTION " + id);
                        killed++;
                    } catch (SQLException gone) {
                        // finished before we got to it
                    }
                }
            }
        } catch (SQLException e) {
            throw new AssertionError(e);
        }
        return killed;
    }

    private int countWhere(String predicate) throws SQLException {
        try (Connection c = db.connect();
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT COUNT(*) FROM " + jobs.name() + " WHERE " + predicate)) {
            rs.next();
            return rs.getInt(1);
        }
    }

    private static String tail(JvmProcess p) {
        List<String> lines = p.outputLines();
        return String.join("\n", lines.subList(Math.max(0, lines.size() - 30), lines.size()));
    }
}
