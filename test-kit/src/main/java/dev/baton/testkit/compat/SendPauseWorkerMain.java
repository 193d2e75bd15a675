package dev.baton.testkit.compat;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.baton.Baton;
import dev.baton.BatonInterceptor;
import dev.baton.BatonListener;
import dev.baton.ClaimQueue;
import dev.baton.ClaimedRow;
import dev.baton.Outcome;
import dev.baton.Worker;
import java.io.PrintStream;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import javax.sql.DataSource;

/**
 * A worker process of the pause suite ({@link AbstractSendPauseProcessTest}): one Worker on the seed's queue with a
 * non-idempotent sink, whose handler sends each row to two recording sinks at once, a plain one (a table that keeps
 * every call) and a fenced one (it keeps the highest send token it saw per row, or that a reconciler raised it to, and
 * refuses a call whose {@link ClaimedRow#sendToken()} is not above it). The reconcile hook raises the fenced sink's
 * fence to the row's attempts (the highest token a send of the row can carry so far), then asks whether either sink
 * has the row.
 *
 * <p>Arguments: jdbcUrl user password table leaseMillis sendTimeoutMillis role step process. Role {@code victim}:
 * claims at once, one row at a time, and at its first row prints {@code AT <step>} at the chosen step of the send
 * protocol ({@code before-mark}, {@code after-mark}, {@code in-send}: after the last check, before the call,
 * {@code after-send}) and sleeps 3 s there, for the test to {@code SIGSTOP} it; then prints {@code RESUMED}. Role
 * {@code healthy}: waits for a row in the table {@code <table>_go} before it starts claiming. Prints {@code READY}
 * when connected, {@code SEND id token process plain|fenced|refused} for each call.
 */
public final class SendPauseWorkerMain {
    private SendPauseWorkerMain() {}

    /** Runs the process until it is killed. */
    public static void main(String[] args) throws Exception {
        String url = args[0];
        String user = args[1];
        String password = args[2].equals("-") ? "" : args[2];
        String table = args[3];
        Duration lease = Duration.ofMillis(Long.parseLong(args[4]));
        Duration sendTimeout = Duration.ofMillis(Long.parseLong(args[5]));
        boolean victim = args[6].equals("victim");
        String step = args[7];
        String process = args[8];
        PrintStream out = System.out;
        AtomicBoolean hooked = new AtomicBoolean(!victim);

        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(url);
        config.setUsername(user);
        config.setPassword(password);
        config.setMaximumPoolSize(8);
        try (HikariDataSource ds = new HikariDataSource(config)) {
            Runnable pauseHere = () -> {
                out.println("AT " + step);
                out.flush();
                sleep(3000); // the test stops the process in here
                out.println("RESUMED");
                out.flush();
            };
            Baton baton = Baton.builder(ds)
                    .listener(new BatonListener() {
                        @Override
                        public void onClaim(String queue, int count) {
                            // on the poller, after the claim and before the mark
                            if (step.equals("before-mark") && hooked.compareAndSet(false, true)) {
                                pauseHere.run();
                            }
                        }
                    })
                    .interceptor(new BatonInterceptor() {
                        @Override
                        public <S extends Enum<S>> Outcome<S> aroundHandle(HandlerCall<S> call) throws Exception {
                            // after the mark committed, before the handler
                            if (step.equals("after-mark") && hooked.compareAndSet(false, true)) {
                                pauseHere.run();
                            }
                            return call.proceed();
                        }
                    })
                    .build();
            out.println("READY");
            out.flush();
            if (!victim) {
                while (!go(ds, table)) {
                    sleep(10);
                }
            }
            ClaimQueue<Sync> queue = JobsTable.sendingQueue(baton, table, lease, sendTimeout);
            Worker worker = baton.worker(queue)
                    .batchSize(1)
                    .concurrency(victim ? 1 : 2)
                    .pollInterval(Duration.ofMillis(20), Duration.ofMillis(100))
                    .sweepInterval(Duration.ofMillis(200))
                    .handle(row -> {
                        row.checkLease(); // the last check before the call
                        if (step.equals("in-send") && hooked.compareAndSet(false, true)) {
                            pauseHere.run(); // the residual window: after the last check, before the bytes leave
                        }
                        // the call runs on a thread of its own, as an HTTP client's does: an interrupt from a lost
                        // lease
                        // does not stop bytes already on their way
                        CompletableFuture<Void> call = CompletableFuture.runAsync(() -> {
                            try {
                                send(ds, table, row, process, out);
                            } catch (SQLException e) {
                                throw new IllegalStateException(e);
                            }
                        });
                        while (true) {
                            try {
                                call.get();
                                break;
                            } catch (InterruptedException e) {
                                // keep waiting: the call is under way
                            }
                        }
                        if (step.equals("after-send") && hooked.compareAndSet(false, true)) {
                            pauseHere.run();
                        }
                        return Outcome.<Sync>complete(Sync.COMPLETED).set("third_party_guid", process);
                    })
                    .reconcile(Long.class, id -> reconcile(ds, table, id))
                    .start();
            out.println("STARTED");
            out.flush();
            Thread.sleep(Long.MAX_VALUE); // killed by the test
            worker.close();
        }
    }

    private static boolean go(DataSource ds, String table) throws SQLException {
        try (Connection c = ds.getConnection();
                PreparedStatement ps = c.prepareStatement("SELECT COUNT(*) FROM " + table + "_go");
                ResultSet rs = ps.executeQuery()) {
            rs.next();
            return rs.getInt(1) > 0;
        }
    }

    /** One call to each sink; the fenced one in a transaction that holds the row's fence locked. */
    private static void send(DataSource ds, String table, ClaimedRow<Sync> row, String process, PrintStream out)
            throws SQLException {
        long id = row.longId();
        long token = row.sendToken();
        try (Connection c = ds.getConnection()) {
            record(c, table, id, token, process, "plain");
            c.setAutoCommit(false);
            long high;
            try (PreparedStatement ps =
                    c.prepareStatement("SELECT high FROM " + table + "_fence WHERE row_id = ? FOR UPDATE")) {
                ps.setLong(1, id);
                try (ResultSet rs = ps.executeQuery()) {
                    rs.next();
                    high = rs.getLong(1);
                }
            }
            boolean accepted = token > high;
            if (accepted) {
                raise(c, table, id, token);
                record(c, table, id, token, process, "fenced");
            }
            c.commit();
            out.println("SEND " + id + " " + token + " " + process + " plain " + (accepted ? "fenced" : "refused"));
            out.flush();
        }
    }

    private static void record(Connection c, String table, long id, long token, String process, String sink)
            throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(
                "INSERT INTO " + table + "_sink (row_id, token, process, sink) VALUES (?, ?, ?, ?)")) {
            ps.setLong(1, id);
            ps.setLong(2, token);
            ps.setString(3, process);
            ps.setString(4, sink);
            ps.executeUpdate();
        }
    }

    private static void raise(Connection c, String table, long id, long to) throws SQLException {
        try (PreparedStatement ps =
                c.prepareStatement("UPDATE " + table + "_fence SET high = ? WHERE row_id = ? AND high < ?")) {
            ps.setLong(1, to);
            ps.setLong(2, id);
            ps.setLong(3, to);
            ps.executeUpdate();
        }
    }

    /**
     * The reconcile hook: fence off every send of the row so far (its attempts column is the highest token one can
     * carry while the row is unknown), then ask the sinks.
     */
    private static Outcome<Sync> reconcile(DataSource ds, String table, long id) throws SQLException {
        try (Connection c = ds.getConnection()) {
            c.setAutoCommit(false);
            long attempts;
            try (PreparedStatement ps = c.prepareStatement("SELECT attempts FROM " + table + " WHERE id = ?")) {
                ps.setLong(1, id);
                try (ResultSet rs = ps.executeQuery()) {
                    rs.next();
                    attempts = rs.getLong(1);
                }
            }
            try (PreparedStatement ps =
                    c.prepareStatement("SELECT high FROM " + table + "_fence WHERE row_id = ? FOR UPDATE")) {
                ps.setLong(1, id);
                ps.executeQuery().close();
            }
            raise(c, table, id, attempts);
            int found;
            try (PreparedStatement ps =
                    c.prepareStatement("SELECT COUNT(*) FROM " + table + "_sink WHERE row_id = ?")) {
                ps.setLong(1, id);
                try (ResultSet rs = ps.executeQuery()) {
                    rs.next();
                    found = rs.getInt(1);
                }
            }
            c.commit();
            return found > 0
                    ? Outcome.<Sync>complete(Sync.COMPLETED).set("third_party_guid", "reconciled")
                    : Outcome.release();
        }
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
