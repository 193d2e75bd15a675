package dev.baton.bench.claim;

import dev.baton.Baton;
import dev.baton.ClaimQueue;
import dev.baton.ClaimedRow;
import dev.baton.Decision;
import dev.baton.LeaseResult;
import dev.baton.Outcome;
import dev.baton.StateMachine;
import dev.baton.bench.ClosedLoop;
import dev.baton.bench.Latency;
import dev.baton.bench.Measurement;
import dev.baton.bench.Options;
import dev.baton.bench.Point;
import dev.baton.bench.Probe;
import dev.baton.bench.Stats;
import dev.baton.bench.Target;
import dev.baton.bench.Workload;
import dev.baton.spi.Dialect;
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
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.ToDoubleFunction;

/**
 * What the epoch read costs a claim of a queue with a non-idempotent sink. Such a claim first reads the
 * writer's epoch on the claim's connection ({@code Diagnostics.epoch}, one more round trip). {@code baton} claims with
 * the dialect on the class path, {@code baton-no-epoch} with the same dialect whose {@code epoch} answers empty
 * without asking the server ({@link EpochDialect#without}), so the difference is the read alone. On PostgreSQL, {@code
 * baton-statement-epoch} reads the same query through a plain {@link Statement}, as the dialect did before it used a
 * prepared statement. An operation is a claim of {@value #BATCH} and the batch's fenced completion (one statement);
 * each epoch read inside a claim is timed too (its round trip as the claim pays it).
 */
public final class EpochReadWorkload implements Workload {
    private static final int BATCH = 100;
    private static final double WARMUP = 1.0;
    private static final double MEASURE = 10.0;

    /** {@code PostgresDiagnostics.EPOCH_SQL}, for the plain-statement read it replaced. */
    static final String PG_EPOCH_SQL = "SELECT CASE WHEN pg_is_in_recovery() THEN NULL ELSE ('x' ||"
            + " substr(pg_walfile_name(pg_current_wal_insert_lsn()), 1, 8))::bit(32)::int END";

    /** A sending queue's states, stored as their ordinals (0..3 as {@link JobTable}'s, then sending and unknown). */
    public enum SendJob {
        PENDING,
        PROCESSING,
        DONE,
        DEAD,
        SENDING,
        UNKNOWN
    }

    static final StateMachine<SendJob> MACHINE = StateMachine.of(SendJob.class)
            .storedAs(SendJob::ordinal)
            .initial(SendJob.PENDING)
            .allow(SendJob.PENDING, SendJob.PROCESSING)
            .allow(SendJob.PROCESSING, SendJob.PENDING, SendJob.DONE, SendJob.DEAD, SendJob.SENDING)
            .allow(SendJob.SENDING, SendJob.DONE, SendJob.UNKNOWN, SendJob.DEAD, SendJob.PENDING)
            .allow(SendJob.UNKNOWN, SendJob.DONE, SendJob.PENDING, SendJob.DEAD)
            .terminal(SendJob.DONE, SendJob.DEAD)
            .build();

    /** Where the epoch reads of the claim under way on this thread are timed; null outside the measured interval. */
    private static final ThreadLocal<Latency> EPOCH_READS = new ThreadLocal<>();

    /** One repetition's latencies by variant: the whole op, the claim alone, the epoch read inside the claim. */
    private record Rep(
            Map<String, Latency.Summary> op, Map<String, Latency.Summary> claim, Map<String, Latency.Summary> read) {}

    /** Per target and point: each repetition, for {@link #finish}. */
    private final Map<String, List<Rep>> byPoint = new HashMap<>();

    @Override
    public String name() {
        return "epoch-read";
    }

    @Override
    public String description(Options o) {
        return "The epoch read of a queue with a non-idempotent sink (`nonIdempotentSink(SENDING, UNKNOWN)`,"
                + " SendDurability OFF): T threads each claim " + BATCH + " rows (`queue.claim(" + BATCH + ")`) and"
                + " complete the batch with one fenced statement (`applyAll`, every row DONE); an op is that pair."
                + " `baton`: the dialect as built, which reads the writer's epoch on the claim's connection before each"
                + " claim (PostgreSQL: `pg_walfile_name(pg_current_wal_insert_lsn())` through a prepared statement;"
                + " MariaDB: `SELECT @@GLOBAL.read_only, @@GLOBAL.server_id, @@GLOBAL.wsrep_on` through a plain"
                + " `Statement`). `baton-statement-epoch` (PostgreSQL): the same query through a plain `Statement`, as"
                + " before (simple query protocol: parsed and planned every time). `baton-no-epoch`: the same dialect"
                + " whose `epoch` answers empty without asking the server (the bench's `EpochDialect`). Every epoch read"
                + " inside a claim is timed (two `nanoTime` calls around the dialect's method, through a proxy on every"
                + " variant alike); that is the round trip the claim pays. All Batons share the bench pool. One timed"
                + " run per repetition: " + WARMUP + " s warm-up, then " + MEASURE + " s in which every thread runs"
                + " the variants in turn, op by op (`ClosedLoop` without slices: an op takes milliseconds here and the"
                + " difference sought is tens of µs, which one burst of another tenant's work in a 200 ms slice would"
                + " hide); the figure is the mean latency of a variant's ops (their counts are equal by construction)."
                + " A fresh table per run, above " + ClaimCompleteWorkload.HISTORY + " completed rows. Verified: every"
                + " claim took " + BATCH + " rows, every completion was Done, the done rows equal the rows completed,"
                + " none held.";
    }

    @Override
    public List<String> variants(Target target) {
        return target.kind() == Target.Kind.POSTGRES
                ? List.of("baton", "baton-statement-epoch", "baton-no-epoch")
                : List.of("baton", "baton-no-epoch");
    }

    @Override
    public List<Point> points(Options options) {
        return List.of(Point.of("threads", 1), Point.of("threads", 4));
    }

    @Override
    public List<Ratio> ratios() {
        return List.of(new Ratio("baton", "baton-no-epoch"), new Ratio("baton-statement-epoch", "baton-no-epoch"));
    }

    @Override
    public String unit() {
        return "µs per op (mean)";
    }

    @Override
    public boolean higherIsBetter() {
        return false;
    }

    @Override
    public int reps(Options o) {
        return Math.min(3, o.reps());
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
        throw new UnsupportedOperationException("epoch-read runs its variants together");
    }

    @Override
    public List<Measurement> runInterleaved(Target target, List<String> variants, Point point, Options o, Probe probe)
            throws Exception {
        int threads = (int) point.x();
        long history = ClaimCompleteWorkload.HISTORY;
        // enough rows that no claim comes up short: the calibrated claim + complete rate of an idle machine (above what
        // this run reaches, as the epoch reads take a share of it) over the whole run
        int tasks = ClaimCompleteWorkload.rows(target.kind(), threads, BATCH, WARMUP + MEASURE);
        JobTable.create(target, history, tasks);
        probe.quiesce(JobTable.NAME);
        Dialect built = Baton.builder(target.pool()).build().dialect();
        int n = variants.size();
        List<ClaimQueue<SendJob>> queues = new ArrayList<>();
        for (String v : variants) {
            Dialect d =
                    switch (v) {
                        case "baton" -> EpochDialect.reading(built, "timed", timed(built.diagnostics()::epoch));
                        case "baton-statement-epoch" ->
                            EpochDialect.reading(built, "statement", timed(EpochReadWorkload::statementEpoch));
                        case "baton-no-epoch" -> EpochDialect.without(built);
                        default -> throw new IllegalArgumentException("unknown variant " + v);
                    };
            queues.add(queue(Baton.builder(target.pool()).dialect(d).build()));
        }
        AtomicLong completed = new AtomicLong();
        AtomicLong bad = new AtomicLong();
        Latency[][] claimLatency = new Latency[n][threads];
        Latency[][] readLatency = new Latency[n][threads];
        long measureFrom = System.nanoTime() + (long) (WARMUP * 1e9);
        ClosedLoop.Steps steps = (v, w) -> {
            Latency claims = claimLatency[v][w] = new Latency();
            Latency reads = readLatency[v][w] = new Latency();
            ClaimQueue<SendJob> queue = queues.get(v);
            return () -> {
                boolean measured = System.nanoTime() - measureFrom > 0;
                EPOCH_READS.set(measured ? reads : null);
                long s = System.nanoTime();
                List<ClaimedRow<SendJob>> rows = queue.claim(BATCH);
                long e = System.nanoTime();
                EPOCH_READS.set(null);
                if (measured) {
                    claims.record(e - s);
                }
                List<Decision<SendJob>> done = new ArrayList<>(rows.size());
                for (ClaimedRow<SendJob> r : rows) {
                    done.add(new Decision<>(r, Outcome.complete(SendJob.DONE)));
                }
                long ok = 0;
                if (!done.isEmpty()) {
                    for (LeaseResult<SendJob> r : queue.applyAll(done)) {
                        ok += r instanceof LeaseResult.Done ? 1 : 0;
                    }
                }
                completed.addAndGet(ok);
                bad.addAndGet(rows.size() - ok);
                return rows.size() == BATCH && ok == BATCH;
            };
        };
        // op by op (A B C A B C …), not in slices: see the description
        List<ClosedLoop.Result> results = ClosedLoop.run(threads, n, steps, WARMUP, MEASURE, 0, false, probe);
        String check = verify(target, history, completed.get(), bad.get());
        List<Measurement> out = new ArrayList<>();
        Rep rep = new Rep(new HashMap<>(), new HashMap<>(), new HashMap<>());
        for (int v = 0; v < n; v++) {
            ClosedLoop.Result r = results.get(v);
            Latency.Summary claim = merged(claimLatency[v]);
            Latency.Summary read = merged(readLatency[v]);
            String note = check
                    + String.format(
                            Locale.ROOT,
                            "; the claim alone: mean %.0f µs, p50 %.0f µs, p99 %.0f µs",
                            claim.meanMicros(),
                            claim.p50Micros(),
                            claim.p99Micros());
            if (!Double.isNaN(read.meanMicros())) {
                note += String.format(
                        Locale.ROOT,
                        "; its epoch read: mean %.0f µs, p50 %.0f µs, p99 %.0f µs",
                        read.meanMicros(),
                        read.p50Micros(),
                        read.p99Micros());
            }
            out.add(new Measurement(
                    r.ops(),
                    r.seconds(),
                    r.latency().meanMicros(),
                    r.latency(),
                    r.failures(),
                    note,
                    Double.NaN,
                    Double.NaN));
            rep.op().put(variants.get(v), r.latency());
            rep.claim().put(variants.get(v), claim);
            rep.read().put(variants.get(v), read);
        }
        byPoint.computeIfAbsent(target.name() + " " + point.label(), k -> new ArrayList<>())
                .add(rep);
        return out;
    }

    /** {@code read}, timed into this thread's {@link #EPOCH_READS} when set. */
    private static EpochDialect.EpochRead timed(EpochDialect.EpochRead read) {
        return c -> {
            Latency sink = EPOCH_READS.get();
            long s = System.nanoTime();
            Optional<String> epoch = read.read(c);
            if (sink != null) {
                sink.record(System.nanoTime() - s);
            }
            return epoch;
        };
    }

    /** The PostgreSQL epoch read as it was: the same query through a plain statement. */
    private static Optional<String> statementEpoch(Connection c) throws SQLException {
        try (Statement s = c.createStatement();
                ResultSet rs = s.executeQuery(PG_EPOCH_SQL)) {
            if (!rs.next()) {
                return Optional.empty();
            }
            int timeline = rs.getInt(1);
            return rs.wasNull() ? Optional.empty() : Optional.of("timeline " + timeline);
        }
    }

    private static Latency.Summary merged(Latency[] perThread) {
        Latency all = new Latency();
        for (Latency l : perThread) {
            all.add(l);
        }
        return all.summary();
    }

    static ClaimQueue<SendJob> queue(Baton baton) {
        return baton.<SendJob>queue("bench-send")
                .table(JobTable.NAME)
                .claim("state", MACHINE, SendJob.PENDING, SendJob.PROCESSING)
                .deadState(SendJob.DEAD)
                .nonIdempotentSink(SendJob.SENDING, SendJob.UNKNOWN)
                .lease(Duration.ofMinutes(5))
                .build();
    }

    /** The done rows are the rows completed, none is held, sending or unknown. */
    private static String verify(Target target, long history, long completed, long bad) throws Exception {
        long done;
        long held;
        try (Connection c = target.pool().getConnection();
                Statement st = c.createStatement()) {
            done = Long.parseLong(
                    Target.one(st, "SELECT COUNT(*) FROM " + JobTable.NAME + " WHERE state = 2 AND id > " + history));
            held = Long.parseLong(
                    Target.one(st, "SELECT COUNT(*) FROM " + JobTable.NAME + " WHERE state IN (1, 4, 5)"));
        }
        boolean ok = done == completed && held == 0 && bad == 0;
        return (ok ? "ok: " : "FAILED: ") + String.format(Locale.ROOT, "%,d", completed) + " rows completed, "
                + String.format(Locale.ROOT, "%,d", done) + " done, " + held + " held, " + bad + " not Done";
    }

    /**
     * Per point, medians over the repetitions: what the read adds to an op and to the claim alone (mean latency minus
     * {@code baton-no-epoch}'s), as µs and as a share, and the epoch read's own time inside the claims.
     */
    @Override
    public String finish(Target target) throws Exception {
        JobTable.drop(target);
        StringBuilder line = new StringBuilder(target.name() + " epoch-read (medians of the repetitions):");
        for (Point p : points(null)) {
            List<Rep> reps = byPoint.remove(target.name() + " " + p.label());
            if (reps == null) {
                continue;
            }
            line.append(' ').append(p.label()).append(':');
            for (String v : List.of("baton", "baton-statement-epoch")) {
                if (!reps.get(0).op().containsKey(v)) {
                    continue;
                }
                line.append(String.format(
                        Locale.ROOT,
                        " `%s` adds %.0f µs to an op (%.1f %% of %.0f µs) and %.0f µs to the claim alone (%.1f %% of"
                                + " %.0f µs); its epoch read takes %.0f µs (mean; p50 %.0f µs);",
                        v,
                        median(reps, r -> mean(r.op(), v) - mean(r.op(), "baton-no-epoch")),
                        100 * median(reps, r -> mean(r.op(), v) / mean(r.op(), "baton-no-epoch") - 1),
                        median(reps, r -> mean(r.op(), "baton-no-epoch")),
                        median(reps, r -> mean(r.claim(), v) - mean(r.claim(), "baton-no-epoch")),
                        100 * median(reps, r -> mean(r.claim(), v) / mean(r.claim(), "baton-no-epoch") - 1),
                        median(reps, r -> mean(r.claim(), "baton-no-epoch")),
                        median(reps, r -> mean(r.read(), v)),
                        median(reps, r -> r.read().get(v).p50Micros())));
            }
        }
        return line.toString();
    }

    private static double mean(Map<String, Latency.Summary> m, String variant) {
        return m.get(variant).meanMicros();
    }

    private static double median(List<Rep> reps, ToDoubleFunction<Rep> f) {
        List<Double> values = new ArrayList<>();
        for (Rep r : reps) {
            values.add(f.applyAsDouble(r));
        }
        return Stats.median(values);
    }
}
