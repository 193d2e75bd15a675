package dev.baton.bench.claim;

import dev.baton.bench.Measurement;
import dev.baton.bench.Options;
import dev.baton.bench.Point;
import dev.baton.bench.Probe;
import dev.baton.bench.Target;
import dev.baton.bench.Workload;
import java.util.ArrayList;
import java.util.List;

/**
 * Claim + complete rows per second with 1, 4, 8 workers and batch 1, 10, 100, Baton against the
 * same work written by hand ({@link RawDrainer}), both committing a batch's completions together. Each point drains a
 * fresh table of pending rows above {@value #HISTORY} completed ones.
 */
public final class ClaimCompleteWorkload implements Workload {
    /** Completed rows kept below the pending ones, so the claim must not walk them. */
    static final long HISTORY = 20_000;

    /** The points, each {workers, batch}, in the order they run. */
    private final List<int[]> pairs;

    /** Points: the pairs {workers, batch} given. */
    public ClaimCompleteWorkload(List<int[]> pairs) {
        this.pairs = List.copyOf(pairs);
    }

    /** Points: every pair of worker count and batch size, batch by batch. */
    public static ClaimCompleteWorkload grid(int[] workers, int[] batches) {
        List<int[]> pairs = new ArrayList<>();
        for (int b : batches) {
            for (int w : workers) {
                pairs.add(new int[] {w, b});
            }
        }
        return new ClaimCompleteWorkload(pairs);
    }

    @Override
    public String name() {
        return "claim";
    }

    @Override
    public String description(Options o) {
        return "Claim + complete: W workers drain pending no-op rows (point `w=W b=B`: B rows per claim). `baton`: "
                + new BatonDrainer(10, HISTORY).description() + " `raw`: " + new RawDrainer(10, HISTORY).description()
                + " Rows per run: about " + SECONDS + " s of work at the rate the point reached on the 2-core machine"
                + " (`ClaimCompleteWorkload.rows`; PostgreSQL " + rows(Target.Kind.POSTGRES) + "; MariaDB "
                + rows(Target.Kind.MARIADB) + "), above " + HISTORY
                + " completed rows; rows/s = rows / (start → last completion committed); client CPU µs/op = this JVM's"
                + " CPU time over the run (all threads: Baton or the hand-written code, driver, pool, harness, JIT, GC)"
                + " / rows. Verified after every run:"
                + " each row executed once, all done, each claimed exactly once (attempts = 1).";
    }

    @Override
    public List<Point> points(Options options) {
        List<Point> points = new ArrayList<>();
        for (int[] p : pairs) {
            int w = p[0];
            int b = p[1];
            points.add(new Point("workers", w * 1000L + b, "w=" + w + " b=" + b, "b=" + b, w));
        }
        return points;
    }

    @Override
    public List<Ratio> ratios() {
        return List.of(new Ratio("baton", "raw", 0.90)); // Claim + complete within 10 %
    }

    @Override
    public String unit() {
        return "rows/s";
    }

    @Override
    public int reps(Options o) {
        return Math.min(3, o.reps());
    }

    @Override
    public void prepare(Target target, Options options) {}

    @Override
    public Measurement run(Target target, String variant, Point point, Options o, Probe probe) throws Exception {
        int w = (int) (point.x() / 1000);
        int b = (int) (point.x() % 1000);
        int rows = rows(target.kind(), w, b, SECONDS);
        StatementCount.reset();
        Measurement m = variant.equals("baton")
                ? new BatonDrainer(b, HISTORY).drain(target, w, rows, probe)
                : new RawDrainer(b, HISTORY).drain(target, w, rows, probe);
        return m.withClientCpu(probe).withNote(StatementCount.perBatch(rows, b));
    }

    /**
     * Rows per run: about {@code seconds} of work at the rate this point reached on the 2-core machine (PostgreSQL 15,
     * MariaDB 10.11, both variants alike, measured 2026-12-01), so every run is long enough to measure steadily.
     */
    static int rows(Target.Kind kind, int workers, int batch, double seconds) {
        boolean pg = kind == Target.Kind.POSTGRES;
        int b = batch >= 100 ? 2 : batch >= 10 ? 1 : 0;
        int w = workers >= 8 ? 2 : workers >= 4 ? 1 : 0;
        int[][] rate = pg
                ? new int[][] {{1_600, 2_400, 3_000}, {11_000, 18_000, 20_000}, {75_000, 75_000, 80_000}}
                : new int[][] {{700, 1_100, 1_100}, {3_900, 4_600, 4_500}, {20_000, 22_000, 24_000}};
        return (int) Math.round(rate[b][w] * seconds / 100.0) * 100;
    }

    /** Seconds of work per run: long enough that a burst from another tenant moves a run by a few percent only. */
    static final double SECONDS = 5.0;

    /** The rows per run of every point, for the description. */
    private String rows(Target.Kind kind) {
        List<String> out = new ArrayList<>();
        for (int[] p : pairs) {
            out.add("w=" + p[0] + " b=" + p[1] + ": " + String.format("%,d", rows(kind, p[0], p[1], SECONDS)));
        }
        return String.join(", ", out);
    }

    @Override
    public String finish(Target target) throws Exception {
        JobTable.drop(target);
        return "";
    }
}
