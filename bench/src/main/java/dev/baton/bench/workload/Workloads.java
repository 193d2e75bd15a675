package dev.baton.bench.workload;

import dev.baton.bench.Workload;
import java.util.ArrayList;
import java.util.List;

/**
 * The registry of workloads, by the names used with {@code --workloads}: {@code transition}, {@code
 * transition-mixed}, {@code claim} (claim + complete, Baton against hand-written JDBC: 1 worker batch 1, 8 workers
 * batch 10 and 100), {@code claim-grid} (the same at 1, 4, 8 workers × batch 1, 10, 100), {@code
 * worker} (one Worker with concurrency 1 or 8, or 8 Workers, completions with and without a column), {@code
 * claim-latency} (one claim against backlog and completed history), {@code drain} (end to end: Baton workers,
 * hand-written JDBC and db-scheduler draining the same number of no-op tasks), {@code outbox} (end to end: producers
 * enqueue and dispatchers deliver messages, Baton's outbox against hand-written JDBC), {@code epoch-read}, {@code jmh}.
 */
public final class Workloads {
    private Workloads() {}

    /** The drain workload with every drainer that exists today. */
    static DrainWorkload drain() {
        // batch 100: db-scheduler's lock-and-fetch takes up to 4 × threads (32 at 8 threads) per poll
        return new DrainWorkload(List.of(
                new dev.baton.bench.claim.BatonDrainer(100, 0),
                new dev.baton.bench.claim.RawDrainer(100, 0),
                new DbSchedulerDrainer()));
    }

    /** The workloads named, in that order. */
    public static List<Workload> named(List<String> names) {
        List<Workload> out = new ArrayList<>();
        for (String n : names) {
            switch (n.trim()) {
                case "transition" -> out.add(new TransitionWorkload(false));
                case "transition-mixed" -> out.add(new TransitionWorkload(true));
                case "drain" -> out.add(drain());
                case "claim" ->
                    // runs of about 5 s each: three points of the grid keep the default bench near 10 minutes (batch
                    // 100 at 1 and 8 threads is also the worker workload's)
                    out.add(new dev.baton.bench.claim.ClaimCompleteWorkload(
                            List.of(new int[] {1, 1}, new int[] {8, 10}, new int[] {8, 100})));
                case "claim-grid" ->
                    out.add(dev.baton.bench.claim.ClaimCompleteWorkload.grid(
                            new int[] {1, 4, 8}, new int[] {1, 10, 100}));
                case "worker" -> out.add(new dev.baton.bench.claim.WorkerWorkload());
                case "worker-interleaved" -> out.add(new dev.baton.bench.claim.WorkerInterleavedWorkload());
                case "epoch-read" -> out.add(new dev.baton.bench.claim.EpochReadWorkload());
                case "claim-latency-10m" ->
                    // The completed-history point at 10 M rows (PostgreSQL: use with --targets postgres)
                    out.add(new dev.baton.bench.claim.ClaimLatencyWorkload(10_000, 1_000_000, 10_000_000, 300));
                case "retention" ->
                    // the claim above 10 M completed rows, and while a batched purge runs
                    out.add(dev.baton.bench.claim.ClaimLatencyWorkload.retention(60_000, 10_000_000, 5_000, 5_000));
                case "outbox-purge" -> out.add(new dev.baton.bench.outbox.OutboxPurgeWorkload(5));
                case "claim-latency" ->
                    out.add(new dev.baton.bench.claim.ClaimLatencyWorkload(10_000, 1_000_000, 5_000_000, 300));
                case "outbox" -> out.add(new dev.baton.bench.outbox.OutboxWorkload(new int[] {1, 4}));
                case "wakeup-latency" -> {
                    out.add(new dev.baton.bench.wake.WakeupLatencyWorkload(false));
                    out.add(new dev.baton.bench.wake.WakeupLatencyWorkload(true));
                }
                case "jmh" -> {} // not a database workload; Main runs the JMH suite
                default ->
                    throw new IllegalArgumentException(
                            "unknown workload " + n
                                    + " (known: transition, transition-mixed, claim, claim-grid, worker, worker-interleaved, epoch-read, claim-latency, claim-latency-10m, retention, outbox-purge, drain, outbox, wakeup-latency, jmh)");
            }
        }
        return out;
    }
}
