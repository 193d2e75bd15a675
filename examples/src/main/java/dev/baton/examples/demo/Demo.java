package dev.baton.examples.demo;

import com.zaxxer.hikari.HikariDataSource;
import dev.baton.Baton;
import dev.baton.TransitionResult;
import dev.baton.examples.payment.CallbackReply;
import dev.baton.examples.payment.PaymentStatus;
import dev.baton.examples.payment.Payments;
import dev.baton.examples.payment.SimulatedThirdParty;
import dev.baton.examples.payment.SyncStatus;
import dev.baton.examples.support.ExampleDatabase;
import dev.baton.examples.support.ExampleSchema;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.PrintStream;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.security.SecureRandom;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import javax.sql.DataSource;

/**
 * The one-command demo: seed 000's payment scenario, run by the naive design and by Baton's on the same workload at
 * the same time, with a side-by-side report of their defects. {@code --help} lists the options.
 */
public final class Demo {
    private static final int CALLBACK_THREADS = 8;
    private static final long SWEEP_MILLIS = 200;
    private static final long BACKLOG_FIRST_ID = 9_000_001L;
    private static final long DRAIN_LIMIT_SECONDS = 20;

    private final DemoOptions options;
    private final PrintStream out;
    private final boolean console;
    private long lastProgressNanos;

    private Demo(DemoOptions options, PrintStream out, boolean console) {
        this.options = options;
        this.out = out;
        this.console = console;
    }

    /** Runs the demo; exits 0 when Baton's design shows no defect, 1 otherwise, 2 on bad options, 3 on failure. */
    public static void main(String[] args) {
        quietLogging();
        System.exit(run(System.out, System.console() != null, args));
    }

    /**
     * Runs the demo, printing to {@code out}.
     *
     * @param console whether {@code out} is a terminal (the progress bar then redraws one line)
     * @return the exit status: 0 when Baton's design shows no defect, 1 otherwise, 2 on bad options, 3 on failure
     */
    static int run(PrintStream out, boolean console, String... args) {
        DemoOptions options;
        try {
            options = DemoOptions.parse(args);
        } catch (DemoOptions.HelpRequested e) {
            out.println(DemoOptions.USAGE);
            return 0;
        } catch (IllegalArgumentException e) {
            out.println(e.getMessage());
            out.println(DemoOptions.USAGE);
            return 2;
        }
        try {
            return new Demo(options, out, console).run();
        } catch (Exception e) {
            out.println();
            SQLException database = databaseError(e);
            if (database != null && options.jdbcUrl() != null) {
                // The usual cause is the command line (no such database, server down, wrong password): one line
                // and what to do, not a stack trace.
                out.println("the demo failed: the database at " + options.jdbcUrl() + " (user " + options.user()
                        + ") cannot be used: " + firstLine(database.getMessage()));
                out.println("  create the database, or use " + withDatabase(options.jdbcUrl(), "test")
                        + "; without --jdbc-url the demo starts an embedded PostgreSQL");
                return 3;
            }
            out.println("the demo failed: " + e);
            e.printStackTrace(out);
            return 3;
        }
    }

    /** The first {@link SQLException} among a failure and its causes, or null. */
    static SQLException databaseError(Throwable failure) {
        for (Throwable t = failure; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (t instanceof SQLException sql) {
                return sql;
            }
        }
        return null;
    }

    /** The same JDBC URL with another database: {@code jdbc:postgresql://h:5432/x?ssl=1} → {@code …/test?ssl=1}. */
    static String withDatabase(String jdbcUrl, String database) {
        return jdbcUrl.replaceFirst("^(jdbc:[a-z]+://[^/?]+)(/[^?]*)?", "$1/" + database);
    }

    private static String firstLine(String message) {
        if (message == null) {
            return "(no message)";
        }
        int newline = message.indexOf('\n');
        return newline < 0 ? message : message.substring(0, newline);
    }

    /** Logs only warnings (slf4j-simple), so that the report stays readable. Call before any logger exists. */
    static void quietLogging() {
        System.setProperty("org.slf4j.simpleLogger.defaultLogLevel", "warn");
        System.setProperty("org.slf4j.simpleLogger.log.io.zonky", "error");
        System.setProperty("org.slf4j.simpleLogger.log.com.zaxxer.hikari", "error");
        System.setProperty("org.jooq.no-logo", "true");
        System.setProperty("org.jooq.no-tips", "true");
    }

    private int run() throws Exception {
        Workload workload = Workload.generate(options.orders(), options.seed());
        out.println("Baton demo: seed 000, the payment callback and the timer job");
        out.print(options.jdbcUrl() == null ? "  starting an embedded PostgreSQL (the first run unpacks it) ... " : "");
        long started = System.nanoTime();
        try (ExampleDatabase db = ExampleDatabase.open(options.jdbcUrl(), options.user(), options.password())) {
            if (db.embedded()) {
                out.printf(Locale.ROOT, "%.1f s%n", seconds(System.nanoTime() - started));
            }
            String suffix = "demo_" + randomSuffix();
            int hosts = options.workers();
            int inProcessHosts = options.processes() == 0 ? hosts : 0;
            HikariDataSource naivePool = db.pool("naive", CALLBACK_THREADS + inProcessHosts + 3);
            HikariDataSource batonPool = db.pool("baton", CALLBACK_THREADS + inProcessHosts * 3 + 6);
            NaiveDesign naive = new NaiveDesign(suffix, db.kind());
            ExampleSchema schema = ExampleSchema.withSuffix(suffix);
            naive.create(naivePool);
            schema.create(batonPool, List.of("orders", "payment_ledger"));
            try {
                return runOn(db, workload, naive, naivePool, schema, batonPool);
            } finally {
                if (!options.keep()) {
                    naive.drop(naivePool);
                    schema.drop(batonPool);
                } else {
                    out.println("  kept tables " + naive.ordersTable() + " and " + schema.table("orders"));
                }
            }
        }
    }

    private int runOn(
            ExampleDatabase db,
            Workload workload,
            NaiveDesign naive,
            DataSource naivePool,
            ExampleSchema schema,
            DataSource batonPool)
            throws Exception {
        Baton baton = Baton.using(batonPool);
        Payments payments = new Payments(baton, schema.dsl(batonPool, db.kind()), schema.table("orders"));
        Tally naiveTally = new Tally("naive", thirdParty());
        Tally batonTally = new Tally("baton", thirdParty());
        int n = workload.orders().size();
        out.println("  database    " + db.description());
        out.println("  url         " + db.jdbcUrl() + (db.user() == null ? "" : " as " + db.user()));
        out.println("  tables      naive: " + naive.ordersTable() + "; Baton: " + schema.table("orders") + ", "
                + schema.table("payment_ledger") + (options.keep() ? " (kept)" : " (dropped at the end)"));
        out.printf(
                Locale.ROOT,
                "  workload    %,d orders over %.1f s; the gateway pays %,d (%,d called back twice, %,d after the"
                        + " order expired), never pays %,d%n",
                n,
                workload.arrivalMillis() / 1000.0,
                workload.paid(),
                workload.duplicated(),
                workload.paidLate(),
                n - workload.paid());
        out.printf(
                Locale.ROOT,
                "  timer jobs  %d hosts per design, %s; payment window %.0f s; naive grace delay %.0f s%n",
                options.workers(),
                options.processes() == 0
                        ? "threads of this JVM"
                        : "spread over " + options.processes() + " worker JVMs",
                workload.paymentWindowMillis() / 1000.0,
                NaiveDesign.GRACE_MILLIS / 1000.0);
        out.println();

        List<Process> children = new ArrayList<>();
        List<ThirdPartyServer> servers = new ArrayList<>();
        TimerJobs inProcess = null;
        ScheduledExecutorService sweeper = Executors.newSingleThreadScheduledExecutor(r -> daemon(r, "expiry-sweep"));
        ScheduledExecutorService gateway = Executors.newScheduledThreadPool(2, r -> daemon(r, "gateway"));
        ExecutorService naiveCallbacks = Executors.newFixedThreadPool(CALLBACK_THREADS, r -> daemon(r, "naive-cb"));
        ExecutorService batonCallbacks = Executors.newFixedThreadPool(CALLBACK_THREADS, r -> daemon(r, "baton-cb"));
        try {
            if (options.processes() > 0) {
                // one server per design, as each design has its own third party in this JVM
                servers.add(new ThirdPartyServer(Map.of("naive", naiveTally.thirdParty)));
                servers.add(new ThirdPartyServer(Map.of("baton", batonTally.thirdParty)));
                children = startWorkers(
                        db,
                        schema.suffix(),
                        servers.get(0).url(),
                        servers.get(1).url());
            } else {
                inProcess = new TimerJobs(
                        naive,
                        naivePool,
                        naiveTally.thirdParty,
                        baton,
                        schema.table("orders"),
                        batonTally.thirdParty,
                        options.workers());
            }
            // tag::demo-sweep[]
            sweeper.scheduleWithFixedDelay(
                    () -> {
                        try {
                            payments.expireUnpaid(Duration.ofMillis(workload.paymentWindowMillis()));
                        } catch (RuntimeException e) {
                            batonTally.callbackErrors.incrementAndGet(); // the next sweep tries again
                        }
                    },
                    SWEEP_MILLIS,
                    SWEEP_MILLIS,
                    TimeUnit.MILLISECONDS);
            // end::demo-sweep[]
            long start = System.nanoTime();
            AtomicLong naiveLedgerIds = new AtomicLong();
            Thread creator = daemon(
                    () -> {
                        try {
                            for (Workload.Order o : workload.orders()) {
                                sleepUntil(start, o.createAtMillis());
                                naive.createOrder(naivePool, o.id(), o.amountCents());
                                payments.create(o.id(), o.amountCents());
                                for (long delay : o.callbackDelaysMillis()) {
                                    naiveTally.pending.incrementAndGet();
                                    batonTally.pending.incrementAndGet();
                                    gateway.schedule(
                                            () -> {
                                                naiveCallbacks.execute(() -> deliverNaive(
                                                        naive,
                                                        naivePool,
                                                        naiveLedgerIds,
                                                        naiveTally,
                                                        o,
                                                        gateway,
                                                        naiveCallbacks,
                                                        1));
                                                batonCallbacks.execute(() -> deliverBaton(
                                                        payments, batonTally, o, gateway, batonCallbacks, 1));
                                            },
                                            delay,
                                            TimeUnit.MILLISECONDS);
                                }
                            }
                        } catch (SQLException | RuntimeException e) {
                            System.err.println("creating orders failed: " + e);
                        }
                    },
                    "order-creator");
            creator.start();

            long deadline = start + TimeUnit.MILLISECONDS.toNanos(workload.lastEventMillis() + 20_000);
            boolean done = false;
            while (!done) {
                Thread.sleep(100);
                long now = System.nanoTime();
                boolean created = creator.getState() == Thread.State.TERMINATED;
                long naiveSettled = count(
                        naivePool,
                        "SELECT COUNT(*) FROM " + naive.ordersTable() + " WHERE third_party_guid IS NOT NULL");
                long batonSettled = count(
                        batonPool,
                        "SELECT COUNT(*) FROM " + schema.table("orders")
                                + " WHERE payment_status = " + PaymentStatus.EXPIRED.code() + " OR sync_status = "
                                + SyncStatus.COMPLETED.code());
                if (created && naiveTally.pending.get() == 0 && naiveSettled == n && naiveTally.settledAtNanos == 0) {
                    naiveTally.settledAtNanos = now;
                }
                if (created && batonTally.pending.get() == 0 && batonSettled == n && batonTally.settledAtNanos == 0) {
                    batonTally.settledAtNanos = now;
                }
                done = (naiveTally.settledAtNanos != 0 && batonTally.settledAtNanos != 0) || now > deadline;
                progress("race   ", naiveSettled, batonSettled, n, now - start, done);
            }
            long end = System.nanoTime();
            Drain drain = drain(Math.min(n, 1000), naive, naivePool, schema, batonPool, naiveTally, batonTally);
            stopWorkers(children);
            children.clear();
            if (inProcess != null) {
                inProcess.close();
                inProcess = null;
            }
            sweeper.shutdownNow();
            return report(workload, naivePool, naive, batonPool, schema, naiveTally, batonTally, drain);
        } finally {
            sweeper.shutdownNow();
            gateway.shutdownNow();
            naiveCallbacks.shutdownNow();
            batonCallbacks.shutdownNow();
            if (inProcess != null) {
                inProcess.close();
            }
            for (Process p : children) {
                p.destroyForcibly();
            }
            servers.forEach(ThirdPartyServer::close);
        }
    }

    /**
     * The third party: 1 to 3 ms a call, and about one order in a hundred has the answer to its first call lost
     * after the record was created (the crash-after-create case of seed 000).
     */
    private static SimulatedThirdParty thirdParty() {
        return new SimulatedThirdParty(1_000, 3_000)
                .faults((record, call) -> call == 1 && record.orderId() % 97 == 0
                        ? SimulatedThirdParty.Fault.LOST_RESPONSE
                        : SimulatedThirdParty.Fault.NONE);
    }

    /** The naive web service's callback handler, as the gateway calls it (retrying when the order is not there). */
    private void deliverNaive(
            NaiveDesign naive,
            DataSource pool,
            AtomicLong ledgerIds,
            Tally tally,
            Workload.Order o,
            ScheduledExecutorService gateway,
            ExecutorService callbacks,
            int attempt) {
        NaiveDesign.Callback result;
        long t0 = System.nanoTime();
        try {
            result = naive.onCallback(pool, o.id(), o.transactionId(), ledgerIds);
        } catch (SQLException | RuntimeException e) {
            tally.callbackErrors.incrementAndGet();
            result = NaiveDesign.Callback.NOT_FOUND;
        }
        tally.callbackMicros.add((System.nanoTime() - t0) / 1000);
        tally.callbacks.incrementAndGet();
        if (result == NaiveDesign.Callback.NOT_FOUND && attempt < 50) {
            gateway.schedule(
                    () -> callbacks.execute(
                            () -> deliverNaive(naive, pool, ledgerIds, tally, o, gateway, callbacks, attempt + 1)),
                    100,
                    TimeUnit.MILLISECONDS);
            return;
        }
        if (result == NaiveDesign.Callback.APPLIED) {
            tally.applied(o.id());
        }
        if (result != NaiveDesign.Callback.NOT_FOUND) {
            tally.acknowledged(o.id());
        }
        tally.pending.decrementAndGet();
    }

    /** Baton's callback handler ({@link Payments#recordPayment}), as the gateway calls it. */
    private void deliverBaton(
            Payments payments,
            Tally tally,
            Workload.Order o,
            ScheduledExecutorService gateway,
            ExecutorService callbacks,
            int attempt) {
        CallbackReply reply;
        boolean applied = false;
        long t0 = System.nanoTime();
        try {
            TransitionResult<PaymentStatus> r = payments.recordPayment(o.id(), o.transactionId());
            applied = r.applied();
            reply = Payments.reply(r);
        } catch (RuntimeException e) {
            tally.callbackErrors.incrementAndGet();
            reply = CallbackReply.RETRY_LATER;
        }
        tally.callbackMicros.add((System.nanoTime() - t0) / 1000);
        tally.callbacks.incrementAndGet();
        if (reply == CallbackReply.RETRY_LATER && attempt < 50) {
            gateway.schedule(
                    () -> callbacks.execute(() -> deliverBaton(payments, tally, o, gateway, callbacks, attempt + 1)),
                    100,
                    TimeUnit.MILLISECONDS);
            return;
        }
        if (applied) {
            tally.applied(o.id());
        }
        if (reply == CallbackReply.ACKNOWLEDGED) {
            tally.acknowledged(o.id());
        } else if (reply == CallbackReply.REFUND) {
            tally.refunded.add(o.id());
        }
        tally.pending.decrementAndGet();
    }

    private List<Process> startWorkers(ExampleDatabase db, String suffix, String naiveUrl, String batonUrl)
            throws Exception {
        String java = Paths.get(System.getProperty("java.home"), "bin", "java").toString();
        List<Process> processes = new ArrayList<>();
        CountDownLatch ready = new CountDownLatch(options.processes());
        for (int i = 1; i <= options.processes(); i++) {
            List<String> command = List.of(
                    java,
                    "-Xmx256m",
                    "-cp",
                    classPath(),
                    DemoWorkerMain.class.getName(),
                    db.jdbcUrl(),
                    db.user() == null || db.user().isEmpty() ? "-" : db.user(),
                    db.password() == null || db.password().isEmpty() ? "-" : db.password(),
                    suffix,
                    String.valueOf(options.workers() / options.processes()
                            + (i <= options.workers() % options.processes() ? 1 : 0)),
                    naiveUrl,
                    batonUrl);
            Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
            processes.add(p);
            String name = "worker-" + i;
            daemon(
                            () -> {
                                try (BufferedReader r = new BufferedReader(
                                        new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
                                    String line;
                                    while ((line = r.readLine()) != null) {
                                        if (line.equals("READY")) {
                                            ready.countDown();
                                        } else if (!line.startsWith("STOPPED")) {
                                            System.err.println("[" + name + "] " + line);
                                        }
                                    }
                                } catch (IOException e) {
                                    // the process ended
                                }
                            },
                            "read-" + name)
                    .start();
        }
        out.print("  starting " + options.processes() + " worker JVMs ... ");
        long t = System.nanoTime();
        if (!ready.await(120, TimeUnit.SECONDS)) {
            throw new IllegalStateException("the worker JVMs did not start within 120 s");
        }
        out.printf(Locale.ROOT, "%.1f s%n%n", seconds(System.nanoTime() - t));
        return processes;
    }

    /** The class path of this JVM, absolute, so that a worker JVM started anywhere finds the same classes. */
    private static String classPath() {
        List<String> parts = new ArrayList<>();
        for (String part : System.getProperty("java.class.path").split(java.io.File.pathSeparator)) {
            if (!part.isEmpty()) {
                Path p = Paths.get(part);
                parts.add(p.isAbsolute() ? part : p.toAbsolutePath().toString());
            }
        }
        return String.join(java.io.File.pathSeparator, parts);
    }

    private static void stopWorkers(List<Process> children) throws InterruptedException {
        for (Process p : children) {
            try (Writer w = new OutputStreamWriter(p.getOutputStream(), StandardCharsets.UTF_8)) {
                w.write("STOP\n");
            } catch (IOException e) {
                // it has ended already
            }
        }
        for (Process p : children) {
            if (!p.waitFor(60, TimeUnit.SECONDS)) {
                p.destroyForcibly();
            }
        }
    }

    /**
     * The throughput phase: a backlog of {@code n} orders that are paid already appears at once in both designs'
     * tables; the timer jobs push it out.
     */
    private Drain drain(
            int n,
            NaiveDesign naive,
            DataSource naivePool,
            ExampleSchema schema,
            DataSource batonPool,
            Tally naiveTally,
            Tally batonTally)
            throws Exception {
        long naiveCalls = naiveTally.thirdParty.calls();
        long batonCalls = batonTally.thirdParty.calls();
        String batonBacklog = "SELECT COUNT(*) FROM " + schema.table("orders") + " WHERE id >= " + BACKLOG_FIRST_ID
                + " AND third_party_guid IS NOT NULL";
        String naiveBacklog = "SELECT COUNT(*) FROM " + naive.ordersTable() + " WHERE id >= " + BACKLOG_FIRST_ID
                + " AND third_party_guid IS NOT NULL";
        long naiveStart = System.nanoTime();
        naive.insertPaidBacklog(naivePool, BACKLOG_FIRST_ID, n);
        long batonStart = System.nanoTime();
        Backlog.insert(
                batonPool,
                "INSERT INTO " + schema.table("orders") + " (id, amount_cents, payment_status, payment_transaction_id,"
                        + " paid_at, sync_status) VALUES (?, 100, " + PaymentStatus.PAID.code() + ", ?,"
                        + " CURRENT_TIMESTAMP, " + SyncStatus.PENDING.code() + ")",
                BACKLOG_FIRST_ID,
                n);
        long naiveDone = 0;
        long batonDone = 0;
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(DRAIN_LIMIT_SECONDS);
        while (naiveDone == 0 || batonDone == 0) {
            Thread.sleep(100);
            long now = System.nanoTime();
            long naivePushed = count(naivePool, naiveBacklog);
            long batonPushed = count(batonPool, batonBacklog);
            if (naivePushed == n && naiveDone == 0) {
                naiveDone = now;
            }
            if (batonPushed == n && batonDone == 0) {
                batonDone = now;
            }
            boolean last = (naiveDone != 0 && batonDone != 0) || now > deadline;
            progress("backlog", naivePushed, batonPushed, n, now - naiveStart, last);
            if (last) {
                break;
            }
        }
        long now = System.nanoTime();
        return new Drain(
                n,
                naiveDone == 0 ? -1 : naiveDone - naiveStart,
                batonDone == 0 ? -1 : batonDone - batonStart,
                naiveTally.thirdParty.calls() - naiveCalls,
                batonTally.thirdParty.calls() - batonCalls,
                naiveCalls,
                batonCalls);
    }

    /** What the throughput phase measured. */
    private record Drain(
            int orders,
            long naiveNanos,
            long batonNanos,
            long naiveCalls,
            long batonCalls,
            long naiveCallsBefore,
            long batonCallsBefore) {}

    private void progress(String phase, long naiveSettled, long batonSettled, int n, long elapsedNanos, boolean last) {
        String line = String.format(
                Locale.ROOT,
                "  %s  naive %s %5.1f%%   baton %s %5.1f%%   %5.1f s",
                phase,
                bar(naiveSettled, n),
                100.0 * naiveSettled / n,
                bar(batonSettled, n),
                100.0 * batonSettled / n,
                seconds(elapsedNanos));
        long now = System.nanoTime();
        if (console) {
            out.print("\r" + line);
            if (last) {
                out.println();
            }
        } else if (last || now - lastProgressNanos >= 1_000_000_000L) {
            out.println(line); // not a terminal: a line a second
            lastProgressNanos = now;
        }
        out.flush();
    }

    private static String bar(long done, int total) {
        int width = 20;
        int filled = (int) Math.min(width, done * width / Math.max(1, total));
        return "[" + "#".repeat(filled) + ".".repeat(width - filled) + "]";
    }

    private int report(
            Workload workload,
            DataSource naivePool,
            NaiveDesign naive,
            DataSource batonPool,
            ExampleSchema schema,
            Tally naiveTally,
            Tally batonTally,
            Drain drain)
            throws SQLException {
        Map<Long, Tally.Row> naiveRows = new HashMap<>();
        try (Connection c = naivePool.getConnection();
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT id, paid, third_party_guid FROM " + naive.ordersTable()
                        + " WHERE id < " + BACKLOG_FIRST_ID)) {
            while (rs.next()) {
                naiveRows.put(rs.getLong(1), new Tally.Row(rs.getBoolean(2), rs.getString(3) != null));
            }
        }
        Map<Long, Tally.Row> batonRows = new HashMap<>();
        try (Connection c = batonPool.getConnection();
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT id, payment_status, sync_status FROM " + schema.table("orders")
                        + " WHERE id < " + BACKLOG_FIRST_ID)) {
            while (rs.next()) {
                int payment = rs.getInt(2);
                int sync = rs.getInt(3);
                boolean settled = payment == PaymentStatus.EXPIRED.code()
                        || (payment == PaymentStatus.PAID.code() && sync == SyncStatus.COMPLETED.code());
                batonRows.put(rs.getLong(1), new Tally.Row(payment == PaymentStatus.PAID.code(), settled));
            }
        }
        Tally.Defects nd = naiveTally.defects(naiveRows);
        Tally.Defects bd = batonTally.defects(batonRows);
        out.println();
        out.println("                                            naive      baton");
        row("premature \"unpaid\" records sent", nd.premature(), bd.premature());
        row("duplicate records at the third party", nd.duplicates(), bd.duplicates());
        row("lost updates (paid, then overwritten)", nd.lostUpdates(), bd.lostUpdates());
        row("callbacks applied twice", nd.appliedTwice(), bd.appliedTwice());
        row("orders left behind", nd.leftBehind(), bd.leftBehind());
        out.println("  ---------------------------------------------------------------");
        row("late payments refused for refund", naiveTally.refunded.size(), batonTally.refunded.size());
        row("callbacks handled", naiveTally.callbacks.get(), batonTally.callbacks.get());
        row("third-party calls", drain.naiveCallsBefore(), drain.batonCallsBefore());
        row(
                "  of which deduplicated by key",
                naiveTally.thirdParty.deduplicated(),
                batonTally.thirdParty.deduplicated());
        out.printf(
                Locale.ROOT,
                "  %-40s %9s  %9s%n",
                "backlog of " + String.format(Locale.ROOT, "%,d", drain.orders()) + " paid orders pushed in",
                drainTime(drain.naiveNanos()),
                drainTime(drain.batonNanos()));
        out.printf(
                Locale.ROOT,
                "  %-40s %9s  %9s%n",
                "throughput (orders pushed per second)",
                drainRate(drain.orders(), drain.naiveNanos()),
                drainRate(drain.orders(), drain.batonNanos()));
        out.printf(
                Locale.ROOT,
                "  %-40s %9.2f  %9.2f%n",
                "  third-party calls per order",
                (double) drain.naiveCalls() / drain.orders(),
                (double) drain.batonCalls() / drain.orders());
        out.printf(
                Locale.ROOT,
                "  %-40s %9s  %9s%n",
                "callback latency p50 / p99 (ms)",
                String.format(Locale.ROOT, "%.1f/%.0f", naiveTally.callbackMillis(50), naiveTally.callbackMillis(99)),
                String.format(Locale.ROOT, "%.1f/%.0f", batonTally.callbackMillis(50), batonTally.callbackMillis(99)));
        out.printf(
                Locale.ROOT,
                "  %-40s %9s  %9s%n",
                "payment -> paid record p50 / p99 (ms)",
                lag(naiveTally),
                lag(batonTally));
        out.println();
        out.println("  naive: a boolean paid, read-then-write callbacks, a timer job that syncs every order without a"
                + " GUID");
        out.println("         after a " + NaiveDesign.GRACE_MILLIS / 1000 + " s delay and saves the row it read.");
        out.println(
                "  baton: guarded transitions (PENDING -> PAID once, unique gateway transaction id), an expiry sweep,"
                        + " a claim");
        out.println(
                "         queue that hands out only PAID orders under a lease, and the third party's idempotency key.");
        out.println(
                "  An order is settled once pushed (naive: with whatever it said) or expired (baton). Then a backlog");
        out.println("  of paid orders appears at once, to measure how fast each design's timer jobs push.");
        out.println();
        if (bd.total() == 0) {
            out.printf(
                    Locale.ROOT,
                    "  Baton: 0 defects. Naive: %,d defects on the same workload%s.%n",
                    nd.total(),
                    nd.total() == 0 ? " (the races did not fire this time; try more --orders)" : "");
            return 0;
        }
        out.printf(Locale.ROOT, "  Baton: %,d defects. This is a bug; please report it with the seed.%n", bd.total());
        return 1;
    }

    private static String drainTime(long nanos) {
        return nanos < 0 ? "> " + DRAIN_LIMIT_SECONDS + " s" : String.format(Locale.ROOT, "%.1f s", seconds(nanos));
    }

    private static String drainRate(int orders, long nanos) {
        return nanos < 0
                ? "< " + Math.round((double) orders / DRAIN_LIMIT_SECONDS)
                : String.format(Locale.ROOT, "%,.0f", orders / seconds(nanos));
    }

    private static String lag(Tally t) {
        double p50 = t.pushLagMillis(50);
        return p50 < 0 ? "-" : String.format(Locale.ROOT, "%.0f/%.0f", p50, t.pushLagMillis(99));
    }

    private void row(String label, long naive, long baton) {
        out.printf(
                Locale.ROOT,
                "  %-40s %9s  %9s%n",
                label,
                String.format(Locale.ROOT, "%,d", naive),
                String.format(Locale.ROOT, "%,d", baton));
    }

    private static long count(DataSource ds, String sql) throws SQLException {
        try (Connection c = ds.getConnection();
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery(sql)) {
            rs.next();
            return rs.getLong(1);
        }
    }

    private static void sleepUntil(long startNanos, long offsetMillis) {
        long wait = startNanos + TimeUnit.MILLISECONDS.toNanos(offsetMillis) - System.nanoTime();
        if (wait > 0) {
            try {
                TimeUnit.NANOSECONDS.sleep(wait);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    private static double seconds(long nanos) {
        return nanos / 1e9;
    }

    private static Thread daemon(Runnable r, String name) {
        Thread t = new Thread(r, name);
        t.setDaemon(true);
        return t;
    }

    private static String randomSuffix() {
        SecureRandom random = new SecureRandom();
        String alphabet = "abcdefghijklmnopqrstuvwxyz0123456789";
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < 6; i++) {
            sb.append(alphabet.charAt(random.nextInt(alphabet.length())));
        }
        return sb.toString();
    }
}
