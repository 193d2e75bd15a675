package dev.baton.bench.claim;

import dev.baton.bench.Measurement;
import dev.baton.bench.Options;
import dev.baton.bench.Point;
import dev.baton.bench.Probe;
import dev.baton.bench.Target;
import dev.baton.bench.Workload;
import java.util.List;

/**
 * Issue 21: the Worker as a service configures it against the hand-written claim loop, and where a gap between the two
 * comes from. {@code baton}: Workers with the default poll intervals over their own HikariCP pool with HikariCP's
 * defaults (two borrows per batch: the claim's and the completion's); {@code baton-pinned}: the same Workers over
 * {@link PinnedDataSource} (each thread keeps one connection from the driver, as the hand-written threads do: no pool,
 * no borrow); {@code raw}: {@link RawDrainer} with one driver connection per thread. Points: one Worker
 * {@code concurrency(8)}, and 8 Workers of concurrency 1. More repetitions of shorter runs than {@code worker}, so that
 * the median of the per-repetition ratios stands out of this machine's run-to-run noise.
 */
public final class WorkerGapWorkload implements Workload {
    private static final int BATCH = 100;
    private static final double SECONDS = 2.0;

    @Override
    public String name() {
        return "worker-gap";
    }

    @Override
    public String description(Options o) {
        return "The Worker as a service configures it, batch " + BATCH
                + ", no-op handler, completions that set nothing:"
                + " `c=8` one `Worker` with `concurrency(8)`, `8 workers` 8 `Worker`s of concurrency 1, all with the"
                + " default poll intervals. `baton`: their own HikariCP pool with HikariCP's defaults (10 connections;"
                + " a borrow for the claim and one for the batch's completion); `baton-pinned`: the same Workers over a"
                + " data source that keeps one driver connection per thread (no pool, no borrow); `raw`: 8 hand-written"
                + " threads, one driver connection each, the same claim and one fenced completion statement per batch."
                + " Rows per run: PostgreSQL " + String.format("%,d", rows(Target.Kind.POSTGRES)) + ", MariaDB "
                + String.format("%,d", rows(Target.Kind.MARIADB)) + ", above " + ClaimCompleteWorkload.HISTORY
                + " completed rows. Verified: each row executed once, all done, each claimed once.";
    }

    private static int rows(Target.Kind kind) {
        return ClaimCompleteWorkload.rows(kind, 8, BATCH, SECONDS);
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
        return Math.max(7, o.reps());
    }

    @Override
    public void prepare(Target target, Options options) {}

    @Override
    public Measurement run(Target target, String variant, Point point, Options o, Probe probe) throws Exception {
        boolean oneWorker = point.x() == 0;
        int rows = rows(target.kind());
        long history = ClaimCompleteWorkload.HISTORY;
        StatementCount.reset();
        Measurement m =
                switch (variant) {
                    case "raw" -> new RawDrainer(BATCH, history, false, true).drain(target, 8, rows, probe);
                    default ->
                        new BatonDrainer(BATCH, history, oneWorker ? 8 : 1, false, true, variant.equals("baton-pinned"))
                                .drain(target, oneWorker ? 1 : 8, rows, probe);
                };
        return m.withClientCpu(probe).withNote(StatementCount.perBatch(rows, BATCH));
    }

    @Override
    public String finish(Target target) throws Exception {
        JobTable.drop(target);
        return "";
    }
}
