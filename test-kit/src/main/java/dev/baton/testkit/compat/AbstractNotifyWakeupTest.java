package dev.baton.testkit.compat;

import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.baton.Baton;
import dev.baton.ClaimQueue;
import dev.baton.Outcome;
import dev.baton.StateTable;
import dev.baton.Worker;
import dev.baton.testkit.DatabaseSuite;
import dev.baton.testservers.JvmProcess;
import dev.baton.testservers.TestDatabase;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Wake-ups across processes on a database with notifications (PostgreSQL's {@code LISTEN}/{@code NOTIFY},
 * capability 5): a worker in another JVM, polling every 30 s, is woken by a transition committed here; a listener whose
 * backend is terminated reconnects and is woken again. Each test listens on a channel of its own, so that the
 * listening backend is found in {@code pg_stat_activity} by its {@code LISTEN} statement.
 */
public abstract class AbstractNotifyWakeupTest extends DatabaseSuite {
    private static final Duration POLL = Duration.ofSeconds(30);
    private static final Duration BOUND = Duration.ofSeconds(5);

    private TestDatabase db;
    private JobsTable jobs;
    private String channel;

    @Override
    protected void setUp() {
        db = database();
    }

    @BeforeEach
    void table() {
        jobs = JobsTable.create(db, "nwake", true);
        channel = "wk_" + Long.toUnsignedString(ThreadLocalRandom.current().nextLong(), 36);
    }

    @AfterEach
    void drop() {
        jobs.drop();
    }

    /** The pid of the backend listening on this test's channel, once there is one other than {@code not}. */
    private int listener(int not) throws Exception {
        long deadline = System.nanoTime() + BOUND.toNanos() * 2;
        while (System.nanoTime() < deadline) {
            try (Connection c = db.connect();
                    PreparedStatement ps =
                            c.prepareStatement("SELECT pid FROM pg_stat_activity WHERE query = ? AND pid <> ?")) {
                ps.setString(1, "LISTEN \"" + channel + "\"");
                ps.setInt(2, not);
                try (ResultSet rs = ps.executeQuery()) {
                    if (rs.next()) {
                        return rs.getInt(1);
                    }
                }
            }
            Thread.sleep(20);
        }
        throw new AssertionError("no backend listens on " + channel);
    }

    @Test
    void aWorkerInAnotherProcessIsWokenByTheNotificationOfACommitHere() throws Exception {
        jobs.insert(1, 1, Payment.PENDING);
        Baton baton = Baton.builder(db.dataSource())
                .crossProcessWakeups(true)
                .wakeupChannel(channel)
                .build();
        StateTable<Payment> payments = baton.table(jobs.name()).state("payment_status", Payment.MACHINE);
        jobs.queue(baton, POLL); // built here: this process knows which queue the transition wakes
        try (JvmProcess worker = JvmProcess.builder(WakeupWorkerMain.class)
                .jvmArgs("-Xmx128m", "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn")
                .args(
                        db.jdbcUrl(),
                        db.user(),
                        db.password() == null || db.password().isEmpty() ? "-" : db.password(),
                        jobs.name(),
                        channel,
                        "1")
                .start()) {
            assertTrue(
                    worker.awaitLine(l -> l.startsWith("CLAIMED"), Duration.ofSeconds(30))
                            .isPresent(),
                    worker.output());
            listener(0);
            Thread.sleep(300); // the probe's round trip, and into the 30 s wait
            long start = System.nanoTime();
            assertTrue(payments.transition(1L, Payment.PENDING, Payment.PAID)
                    .apply()
                    .applied());
            assertTrue(
                    worker.awaitLine(l -> l.equals("H 1"), BOUND).isPresent(),
                    "the other process was not woken within " + BOUND + " (poll 30 s): " + worker.output());
            System.out.println(
                    "wake-up across processes on " + db.name() + ": transition to the other JVM's handler in "
                            + (System.nanoTime() - start) / 1_000_000 + " ms (poll 30 s)");
        }
    }

    @Test
    void theListenerReconnectsAfterItsBackendIsTerminated() throws Exception {
        jobs.insert(1, 1, Payment.PENDING);
        Baton baton = Baton.builder(db.dataSource())
                .crossProcessWakeups(true)
                .wakeupChannel(channel)
                .build();
        ClaimQueue<Sync> queue = jobs.queue(baton, POLL);
        Set<Object> handled = ConcurrentHashMap.newKeySet();
        try (Worker w = baton.worker(queue)
                .pollInterval(POLL, POLL)
                .handle(row -> {
                    handled.add(row.id());
                    return Outcome.complete(Sync.COMPLETED);
                })
                .start()) {
            assertTrue(w.isRunning());
            int first = listener(0);
            try (Connection c = db.connect();
                    PreparedStatement ps = c.prepareStatement("SELECT pg_terminate_backend(?)")) {
                ps.setInt(1, first);
                ps.execute();
            }
            listener(first); // a new backend listens
            Thread.sleep(300); // the new probe's round trip, and the claim the reconnection wakes
            // another process's enqueue: its own statement and notification, nothing this JVM's wake-ups see
            try (Connection c = db.connect()) {
                c.setAutoCommit(false);
                try (PreparedStatement up =
                                c.prepareStatement("UPDATE " + jobs.name() + " SET payment_status = ? WHERE id = 1");
                        PreparedStatement notify = c.prepareStatement("SELECT pg_notify(?, ?)")) {
                    up.setInt(1, Payment.PAID.code());
                    up.executeUpdate();
                    notify.setString(1, channel);
                    notify.setString(2, queue.name());
                    notify.execute();
                }
                c.commit();
            }
            long deadline = System.nanoTime() + BOUND.toNanos();
            while (!handled.contains(1L) && System.nanoTime() < deadline) {
                Thread.sleep(5);
            }
            assertTrue(handled.contains(1L), "the reconnected listener did not wake the worker within " + BOUND);
        }
    }

    /**
     * The listener's connection comes from the application's pool: after the last worker stops, it goes back listening
     * on nothing, so no pooled session of the application buffers later notifications.
     */
    @Test
    void theListenerGivesItsConnectionBackToThePoolListeningOnNothing() throws Exception {
        try (com.zaxxer.hikari.HikariDataSource pool = db.newDataSource(3)) {
            Baton baton = Baton.builder(pool)
                    .crossProcessWakeups(true)
                    .wakeupChannel(channel)
                    .build();
            ClaimQueue<Sync> queue = jobs.queue(baton, POLL);
            try (Worker w = baton.worker(queue)
                    .pollInterval(POLL, POLL)
                    .handle(row -> Outcome.complete(Sync.COMPLETED))
                    .start()) {
                assertTrue(w.isRunning());
                listener(0);
            }
            long deadline = System.nanoTime() + BOUND.toNanos() * 2;
            while (pool.getHikariPoolMXBean().getActiveConnections() > 0 && System.nanoTime() < deadline) {
                Thread.sleep(20);
            }
            assertTrue(
                    pool.getHikariPoolMXBean().getActiveConnections() == 0,
                    "the listener kept its connection after the last worker stopped");
            java.util.List<Connection> borrowed = new java.util.ArrayList<>();
            java.util.List<String> channels = new java.util.ArrayList<>();
            try {
                for (int i = 0; i < 3; i++) {
                    Connection c = pool.getConnection();
                    borrowed.add(c);
                    try (java.sql.Statement s = c.createStatement();
                            ResultSet rs = s.executeQuery("SELECT pg_listening_channels()")) {
                        while (rs.next()) {
                            channels.add(rs.getString(1));
                        }
                    }
                }
            } finally {
                for (Connection c : borrowed) {
                    c.close();
                }
            }
            assertTrue(channels.isEmpty(), "channels the pooled sessions still listen on: " + channels);
        }
    }
}
