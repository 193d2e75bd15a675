package dev.baton.bench.claim;

import dev.baton.Baton;
import dev.baton.BatonListener;
import dev.baton.ClaimQueue;
import dev.baton.Outcome;
import dev.baton.Worker;
import dev.baton.bench.Latency;
import dev.baton.bench.Measurement;
import dev.baton.bench.Options;
import dev.baton.bench.Point;
import dev.baton.bench.Probe;
import dev.baton.bench.Target;
import dev.baton.bench.Workload;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The Worker as a service configures it against the hand-written claim loop, in one timed run whose slices
 * of {@value #SLICE} s alternate between the variants (A B C C B A …), so that this shared machine's drift falls on
 * all of them alike: the run-to-run spread of the {@code worker} workload here (per-repetition ratios from 0.67 to
 * 1.18 in one invocation) hides a 10 % gap. All variants drain one table; a variant works only in its own slices (the
 * Workers of the others are paused, the hand-written threads wait), and its rows per second are the rows it completed
 * inside its slices over their length.
 */
public final class WorkerInterleavedWorkload implements Workload {
    private static final int BATCH = 100;
    private static final double SLICE = 0.25;
    private static final double WARMUP = 1.0;
    private static final double MEASURE = 4.0;

    @Override
    public String name() {
        return "worker-interleaved";
    }

    @Override
    public String description(Options o) {
        return "The Worker as a service configures it (default poll intervals), batch " + BATCH + ", no-op handler,"
                + " completions that set nothing: `c=8` one `Worker` with `concurrency(8)`, `8 workers` 8 `Worker`s"
                + " of concurrency 1. `baton`: over their own HikariCP pool with HikariCP's defaults (a borrow for the"
                + " claim and one for the batch's completion); `baton-pinned`: over a data source that keeps one driver"
                + " connection per thread (no pool); `raw`: 8 hand-written threads, one driver connection each, the same"
                + " claim and one fenced completion statement per batch. One timed run per repetition: after " + WARMUP
                + " s of warm-up, " + MEASURE + " s per variant in slices of " + SLICE + " s alternating A B C C B A;"
                + " a variant works only in its slices (the others' Workers paused, their threads waiting; between two"
                + " slices, untimed, everyone pauses until no batch is in flight, so no variant's last batches fall in"
                + " the next one's slice), and its figure is the rows it committed inside its slices over their"
                + " length. All variants drain one table"
                + " above " + ClaimCompleteWorkload.HISTORY
                + " completed rows. Verified after each run: no row executed"
                + " twice, every executed row done, every done row executed, none left held.";
    }

    @Override
    public List<String> variants(Target target) {
        return List.of("baton", "baton-pinned", "raw");
    }

    @Override
    public List<Point> points(Options options) {
        return List.of(new Point("threads", 0, "c=8", "plain", 8), new Point("threads", 1, "8 workers", "plain", 8));
    }

    @Override
    public List<Ratio> ratios() {
        return List.of(
                new Ratio("baton", "raw", 0.90),
                new Ratio("baton-pinned", "raw", 0.90),
                new Ratio("baton", "baton-pinned", 0.90));
    }

    @Override
    public String unit() {
        return "rows/s";
    }

    @Override
    public int reps(Options o) {
        return Math.max(5, o.reps());
    }

    @Override
    public boolean canInterleave() {
        return true;
    }

    @Override
    public boolean interleavesOnly() {
        return true;
    }

    @Override
    public void prepare(Target target, Options options) {}

    @Override
    public Measurement run(Target target, String variant, Point point, Options o, Probe probe) {
        throw new UnsupportedOperationException("worker-interleaved runs its variants together");
    }

    /** Which variant works now, and whether its slice is measured. */
    private static final class Control {
        final Object turn = new Object();
        volatile int variant = -1;
        volatile boolean measuring;
        volatile boolean stop;
        /** Hand-written threads between the start of a claim and the end of its batch's completion. */
        final java.util.concurrent.atomic.AtomicInteger rawBusy = new java.util.concurrent.atomic.AtomicInteger();

        final AtomicReference<Throwable> error = new AtomicReference<>();
    }

    @Override
    public List<Measurement> runInterleaved(Target target, List<String> variants, Point point, Options o, Probe probe)
            throws Exception {
        boolean oneWorker = point.x() == 0;
        long history = ClaimCompleteWorkload.HISTORY;
        // enough rows that the table never runs dry: the calibrated rate over the whole run, and half again
        int tasks =
                (int) (ClaimCompleteWorkload.rows(target.kind(), 8, BATCH, WARMUP + MEASURE * variants.size()) * 1.5);
        JobTable.create(target, history, tasks);
        probe.quiesce(JobTable.NAME);
        AtomicIntegerArray executions = new AtomicIntegerArray(tasks);
        Control control = new Control();
        int n = variants.size();
        AtomicLong[] counted = new AtomicLong[n];
        List<List<Worker>> workers = new ArrayList<>();
        List<AutoCloseable> sources = new ArrayList<>();
        List<Thread> rawThreads = new ArrayList<>();
        for (int v = 0; v < n; v++) {
            counted[v] = new AtomicLong();
            workers.add(List.of());
        }
        try {
            for (int v = 0; v < n; v++) {
                String name = variants.get(v);
                int me = v;
                if (name.equals("raw")) {
                    for (int t = 0; t < 8; t++) {
                        Thread th = new Thread(
                                () -> rawLoop(target, history, executions, control, me, counted[me]), "raw-" + t);
                        th.setDaemon(true);
                        rawThreads.add(th);
                        th.start();
                    }
                    continue;
                }
                javax.sql.DataSource ds;
                if (name.equals("baton-pinned")) {
                    PinnedDataSource pin = new PinnedDataSource(target);
                    sources.add(pin);
                    ds = pin;
                } else {
                    com.zaxxer.hikari.HikariDataSource own = target.defaultPool();
                    sources.add(own);
                    ds = own;
                }
                Baton baton = Baton.builder(ds)
                        .listener(new BatonListener() {
                            @Override
                            public void onOutcome(
                                    String queue, Object id, Outcome.Kind kind, Enum<?> state, int attempt) {
                                if (control.measuring && control.variant == me) {
                                    counted[me].incrementAndGet();
                                }
                            }
                        })
                        .build();
                ClaimQueue<BatonDrainer.Job> queue = BatonDrainer.queue(baton);
                List<Worker> ws = new ArrayList<>();
                for (int i = 0; i < (oneWorker ? 1 : 8); i++) {
                    Worker w = baton.worker(queue)
                            .batchSize(BATCH)
                            .concurrency(oneWorker ? 8 : 1)
                            .handle(row -> {
                                executions.incrementAndGet((int) (((Number) row.id()).longValue() - history - 1));
                                return Outcome.complete(BatonDrainer.Job.DONE);
                            })
                            .start();
                    w.pause();
                    ws.add(w);
                }
                workers.set(v, ws);
            }
            int warmSlices = Math.max(n, (int) Math.round(WARMUP / SLICE));
            for (int i = 0; i < warmSlices; i++) {
                turn(control, workers, i % n);
                sleep(SLICE, control);
            }
            int slices = (int) Math.round(MEASURE * n / SLICE);
            slices += slices % (2 * n) == 0 ? 0 : 2 * n - slices % (2 * n); // whole A B C C B A rounds
            long[] nanos = new long[n];
            probe.begin();
            for (int i = 0; i < slices; i++) {
                int round = i / n;
                int pos = i % n;
                int v = round % 2 == 0 ? pos : n - 1 - pos;
                quiet(control, workers); // no variant's last batches fall into the next one's slice
                turn(control, workers, v);
                long t0 = System.nanoTime();
                control.measuring = true;
                sleep(SLICE, control);
                control.measuring = false;
                nanos[v] += System.nanoTime() - t0;
            }
            probe.end();
            turn(control, workers, -1);
            control.stop = true;
            synchronized (control.turn) {
                control.turn.notifyAll();
            }
            for (Thread t : rawThreads) {
                t.join(60_000);
            }
            for (List<Worker> ws : workers) {
                ws.forEach(Worker::close);
            }
            if (control.error.get() != null) {
                throw new IllegalStateException("a hand-written thread failed", control.error.get());
            }
            String check = verify(target, history, tasks, executions);
            long failures = check.startsWith("ok") ? 0 : 1;
            List<Measurement> out = new ArrayList<>();
            for (int v = 0; v < n; v++) {
                out.add(Measurement.throughput(
                        counted[v].get(), nanos[v] / 1e9, Latency.Summary.NONE, failures, check));
            }
            return out;
        } finally {
            control.stop = true;
            synchronized (control.turn) {
                control.turn.notifyAll();
            }
            for (List<Worker> ws : workers) {
                ws.forEach(Worker::close);
            }
            for (AutoCloseable s : sources) {
                s.close();
            }
        }
    }

    /** Gives the turn to variant {@code v} (-1: nobody): the others' Workers pause, v's resume, raw threads wake. */
    private static void turn(Control control, List<List<Worker>> workers, int v) {
        for (int i = 0; i < workers.size(); i++) {
            if (i != v) {
                workers.get(i).forEach(Worker::pause);
            }
        }
        control.variant = v;
        if (v >= 0) {
            workers.get(v).forEach(Worker::resume);
        }
        synchronized (control.turn) {
            control.turn.notifyAll();
        }
    }

    /**
     * Pauses everyone and waits until no batch is in flight: the Workers hold no row and every hand-written thread
     * waits for its turn (at most a second).
     */
    private static void quiet(Control control, List<List<Worker>> workers) throws InterruptedException {
        turn(control, workers, -1);
        long until = System.nanoTime() + 1_000_000_000L;
        int calm = 0; // two looks 5 ms apart: a claim that left before the pause shows up in between
        while (System.nanoTime() < until) {
            boolean busy = control.rawBusy.get() > 0;
            for (List<Worker> ws : workers) {
                for (Worker w : ws) {
                    busy |= w.inFlight() > 0;
                }
            }
            calm = busy ? 0 : calm + 1;
            if (calm == 2) {
                return;
            }
            Thread.sleep(busy ? 1 : 5);
        }
    }

    private static void sleep(double seconds, Control control) throws InterruptedException {
        long until = System.nanoTime() + (long) (seconds * 1e9);
        while (control.error.get() == null) {
            long left = until - System.nanoTime();
            if (left <= 0) {
                return;
            }
            Thread.sleep(Math.min(50, Math.max(1, left / 1_000_000)));
        }
    }

    /** A hand-written thread: claims and completes batches while it is {@code me}'s turn. */
    private static void rawLoop(
            Target target, long history, AtomicIntegerArray executions, Control control, int me, AtomicLong counted) {
        RawDrainer raw = new RawDrainer(BATCH, history, false, true);
        boolean pg = target.kind() == Target.Kind.POSTGRES;
        try (Connection c = target.connect()) {
            c.setTransactionIsolation(Connection.TRANSACTION_READ_COMMITTED);
            while (!control.stop) {
                if (control.variant != me) {
                    synchronized (control.turn) {
                        while (control.variant != me && !control.stop) {
                            control.turn.wait();
                        }
                    }
                    continue;
                }
                control.rawBusy.incrementAndGet();
                try {
                    if (control.variant != me) {
                        continue; // the turn passed while this thread went round: no new batch
                    }
                    long token = (ThreadLocalRandom.current().nextLong() >>> 1) + 1;
                    List<Long> ids = raw.claim(c, token, pg);
                    for (long id : ids) {
                        executions.incrementAndGet((int) (id - history - 1));
                    }
                    if (!ids.isEmpty()) {
                        RawDrainer.complete(c, ids, null, token);
                        if (control.measuring && control.variant == me) {
                            counted.addAndGet(ids.size());
                        }
                    }
                } finally {
                    control.rawBusy.decrementAndGet();
                }
            }
        } catch (Throwable t) {
            control.error.compareAndSet(null, t);
        }
    }

    /** No row executed twice, every executed row done and every done row executed, none left held. */
    private static String verify(Target target, long history, int tasks, AtomicIntegerArray executions)
            throws Exception {
        long executed = 0;
        long twice = 0;
        for (int i = 0; i < tasks; i++) {
            int e = executions.get(i);
            executed += e > 0 ? 1 : 0;
            twice += e > 1 ? 1 : 0;
        }
        long done = 0;
        long doneNotExecuted = 0;
        try (Connection c = target.pool().getConnection();
                Statement st = c.createStatement();
                ResultSet rs =
                        st.executeQuery("SELECT id FROM " + JobTable.NAME + " WHERE state = 2 AND id > " + history)) {
            while (rs.next()) {
                done++;
                doneNotExecuted += executions.get((int) (rs.getLong(1) - history - 1)) == 0 ? 1 : 0;
            }
        }
        long held;
        try (Connection c = target.pool().getConnection();
                PreparedStatement ps =
                        c.prepareStatement("SELECT COUNT(*) FROM " + JobTable.NAME + " WHERE state = 1");
                ResultSet rs = ps.executeQuery()) {
            rs.next();
            held = rs.getLong(1);
        }
        boolean ok = twice == 0 && doneNotExecuted == 0 && done == executed && held == 0;
        return (ok ? "ok: " : "FAILED: ") + String.format("%,d", executed) + " rows executed, " + twice + " twice, "
                + String.format("%,d", done) + " done (" + doneNotExecuted + " never executed), " + held + " held";
    }

    @Override
    public String finish(Target target) throws Exception {
        JobTable.drop(target);
        return "";
    }
}
