package dev.baton.bench.workload;

import dev.baton.bench.Measurement;
import dev.baton.bench.Options;
import dev.baton.bench.Point;
import dev.baton.bench.Probe;
import dev.baton.bench.Target;
import dev.baton.bench.Workload;
import java.util.ArrayList;
import java.util.List;

/**
 * End-to-end queue throughput: N due no-op tasks are inserted by SQL, then the timer runs from the start of the workers
 * until the queue is empty. Each {@link Drainer} is a variant; the ratio baton / db-scheduler is reported as soon as a
 * {@code baton} drainer is registered in {@link Workloads}.
 */
public final class DrainWorkload implements Workload {
    private final List<Drainer> drainers;

    /** A drain workload over these systems. */
    public DrainWorkload(List<Drainer> drainers) {
        this.drainers = List.copyOf(drainers);
    }

    @Override
    public String name() {
        return "drain";
    }

    @Override
    public String description(Options o) {
        StringBuilder sb = new StringBuilder("A queue of ")
                .append(String.format("%,d", o.tasks()))
                .append(" due no-op tasks, inserted by SQL (so scheduling cost is excluded), is drained by each")
                .append(" system with the given number of worker threads; executions/s = tasks / (workers started →")
                .append(" queue empty). Every run is verified: each task executed exactly once (0 duplicates, 0")
                .append(" lost), queue empty.\n\n");
        for (Drainer d : drainers) {
            sb.append("- `")
                    .append(d.name())
                    .append("`: ")
                    .append(d.description())
                    .append('\n');
        }
        return sb.toString();
    }

    @Override
    public boolean supports(Target target) {
        return drainers.stream().anyMatch(d -> d.supports(target));
    }

    @Override
    public List<String> variants(Target target) {
        List<String> names = new ArrayList<>();
        for (Drainer d : drainers) {
            if (d.supports(target)) {
                names.add(d.name());
            }
        }
        return names;
    }

    @Override
    public List<Point> points(Options o) {
        List<Point> points = new ArrayList<>();
        for (int t : o.drainThreads()) {
            points.add(new Point("threads", t, "threads=" + t));
        }
        return points;
    }

    @Override
    public List<Ratio> ratios() {
        return List.of(
                new Ratio("baton", "db-scheduler", 5.0),
                new Ratio("raw", "db-scheduler"),
                new Ratio("baton", "raw", 0.90));
    }

    /** At most 3: a drain is work-bounded (about 10 s per run on the 2-core machine, more under load). */
    @Override
    public int reps(Options o) {
        return Math.min(3, o.reps());
    }

    @Override
    public String unit() {
        return "executions/s";
    }

    @Override
    public void prepare(Target target, Options options) {}

    @Override
    public Measurement run(Target target, String variant, Point point, Options o, Probe probe) throws Exception {
        for (Drainer d : drainers) {
            if (d.name().equals(variant)) {
                return d.drain(target, (int) point.x(), o.tasks(), probe);
            }
        }
        throw new IllegalArgumentException("no drainer " + variant);
    }

    @Override
    public String finish(Target target) throws Exception {
        for (Drainer d : drainers) {
            if (d.supports(target)) {
                d.cleanup(target);
            }
        }
        return "";
    }
}
