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
 * The Worker as users run it, batch {@value #BATCH}: one {@code Worker} with {@code concurrency(1)}, one
 * with {@code concurrency(8)}, and 8 {@code Worker}s, each with completions that set nothing ({@code plain}) and
 * completions that set a column ({@code guid}: {@code .set("third_party_guid", "g" + id)}), against hand-written
 * JDBC on as many threads doing the same work ({@link RawDrainer}: the same claim, the no-op, one fenced completion
 * statement per batch, with the guids in it as {@code CASE id WHEN ? THEN ? … END}).
 */
public final class WorkerWorkload implements Workload {
    private static final int BATCH = 100;

    /** Seconds of work per run (at the rates {@code ClaimCompleteWorkload.rows} was calibrated with). */
    private static final double SECONDS = 4.0;

    /** The shapes: label, Workers, concurrency of each, hand-written threads. */
    private record Shape(String label, int workers, int concurrency, boolean asUsers) {
        Shape(String label, int workers, int concurrency) {
            this(label, workers, concurrency, false);
        }

        int threads() {
            return workers * concurrency;
        }
    }

    private static final List<Shape> SHAPES = List.of(
            new Shape("c=1", 1, 1),
            new Shape("c=8", 1, 8),
            new Shape("8 workers", 8, 1),
            new Shape("c=8 as configured by users", 1, 8, true));

    @Override
    public String name() {
        return "worker";
    }

    @Override
    public String description(Options o) {
        return "The Worker as users run it, batch " + BATCH + ": `c=1` one `Worker` (`concurrency(1)`), `c=8` one"
                + " `Worker` with `concurrency(8)` (8 pollers, each claims its batch, runs the no-op handlers and"
                + " commits them in one statement), `8 workers` 8 `Worker`s of concurrency 1, `c=8 as configured by"
                + " users` the same as `c=8` with the Worker's default poll intervals and its own pool with HikariCP's"
                + " defaults (against hand-written threads holding a connection each from the driver, no pool);"
                + " `plain` completions set"
                + " nothing, `guid` completions `.set(\"third_party_guid\", \"g\" + id)`. `raw`: as many hand-written"
                + " threads (1, 8, 8) with the same claim and one fenced completion statement per batch, the guids in it"
                + " as `CASE id WHEN ? THEN ? … ELSE third_party_guid END` (Baton's statement). Rows per run: about "
                + SECONDS + " s of work (PostgreSQL "
                + String.format("%,d / %,d", rows(Target.Kind.POSTGRES, 1), rows(Target.Kind.POSTGRES, 8))
                + ", MariaDB " + String.format("%,d / %,d", rows(Target.Kind.MARIADB, 1), rows(Target.Kind.MARIADB, 8))
                + " at 1 / 8 threads), above "
                + ClaimCompleteWorkload.HISTORY + " completed rows. Verified: each row executed once, all done (with"
                + " its guid), each claimed once. Client CPU µs/op: this JVM's CPU time over the run (all threads:"
                + " Baton or the hand-written code, driver, pool, harness, JIT, GC) / rows, so claim + complete per"
                + " row on both sides.";
    }

    private static int rows(Target.Kind kind, int threads) {
        return ClaimCompleteWorkload.rows(kind, threads, BATCH, SECONDS);
    }

    @Override
    public List<Point> points(Options options) {
        List<Point> points = new ArrayList<>();
        for (int g = 0; g < 2; g++) {
            for (int s = 0; s < SHAPES.size(); s++) {
                Shape shape = SHAPES.get(s);
                String outcome = g == 0 ? "plain" : "guid";
                points.add(new Point("threads", s * 10L + g, shape.label() + " " + outcome, outcome, shape.threads()));
            }
        }
        return points;
    }

    @Override
    public List<Ratio> ratios() {
        return List.of(new Ratio("baton", "raw", 0.90)); // 0.90 (8 Workers plain: 0.93)
    }

    @Override
    public String unit() {
        return "rows/s";
    }

    @Override
    public int reps(Options o) {
        return Math.max(3, o.reps());
    }

    @Override
    public void prepare(Target target, Options options) {}

    @Override
    public Measurement run(Target target, String variant, Point point, Options o, Probe probe) throws Exception {
        Shape shape = SHAPES.get((int) (point.x() / 10));
        boolean guid = point.x() % 10 == 1;
        int rows = rows(target.kind(), shape.threads());
        long history = ClaimCompleteWorkload.HISTORY;
        StatementCount.reset();
        Measurement m = variant.equals("baton")
                ? new BatonDrainer(BATCH, history, shape.concurrency(), guid, shape.asUsers())
                        .drain(target, shape.workers(), rows, probe)
                : new RawDrainer(BATCH, history, guid, shape.asUsers()).drain(target, shape.threads(), rows, probe);
        return m.withClientCpu(probe).withNote(StatementCount.perBatch(rows, BATCH));
    }

    @Override
    public String finish(Target target) throws Exception {
        JobTable.drop(target);
        return "";
    }
}
