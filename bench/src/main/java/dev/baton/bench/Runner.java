package dev.baton.bench;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Runs workloads against targets: prepare once per target, then every repetition over all points and variants
 * (variants in the workload's order on odd repetitions, reversed on even ones, so that neither side always runs first
 * after a quiesce or always second in a warming JVM), recording each run to the CSV as it finishes.
 */
final class Runner {
    private final Options options;
    private final Csv csv;
    private final List<Run> runs = new ArrayList<>();
    private final List<String> notes = new ArrayList<>();

    Runner(Options options, Csv csv) {
        this.options = options;
        this.csv = csv;
    }

    List<Run> runs() {
        return runs;
    }

    List<String> notes() {
        return notes;
    }

    void run(Target target, Workload workload) throws Exception {
        if (!workload.supports(target)) {
            return;
        }
        log("%s / %s: preparing", target.name(), workload.name());
        long t = System.nanoTime();
        workload.prepare(target, options);
        log("%s / %s: prepared in %.1f s", target.name(), workload.name(), (System.nanoTime() - t) / 1e9);
        List<String> variants = workload.variants(target);
        List<int[]> schedule = new ArrayList<>(); // {rep, point index}
        int pointCount = workload.points(options).size();
        for (int a = 0; a < (workload.repeatsPointInPlace() ? pointCount : workload.reps(options)); a++) {
            for (int b = 0; b < (workload.repeatsPointInPlace() ? workload.reps(options) : pointCount); b++) {
                schedule.add(workload.repeatsPointInPlace() ? new int[] {b + 1, a} : new int[] {a + 1, b});
            }
        }
        for (int[] step : schedule) {
            int rep = step[0];
            Point point = workload.points(options).get(step[1]);
            {
                List<String> order = new ArrayList<>(variants);
                if (rep % 2 == 0) {
                    java.util.Collections.reverse(order);
                }
                if ((options.slices() || workload.interleavesOnly()) && workload.canInterleave() && order.size() > 1) {
                    Probe probe = new Probe(target);
                    List<Measurement> ms = workload.runInterleaved(target, order, point, options, probe);
                    for (int i = 0; i < order.size(); i++) {
                        record(target, workload, order.get(i), point, rep, i + 1, ms.get(i), probe.usage());
                    }
                } else {
                    for (int i = 0; i < order.size(); i++) {
                        String variant = order.get(i);
                        Probe probe = new Probe(target);
                        Measurement m = workload.run(target, variant, point, options, probe);
                        record(target, workload, variant, point, rep, i + 1, m, probe.usage());
                    }
                }
            }
        }
        String line = workload.finish(target);
        if (!line.isEmpty()) {
            notes.add(line);
            log("%s", line);
        }
    }

    private void record(
            Target target,
            Workload workload,
            String variant,
            Point point,
            int rep,
            int order,
            Measurement m,
            CpuStat.Usage cpu)
            throws java.io.IOException {
        Run r = new Run(Instant.now(), target.name(), workload.name(), variant, point, rep, order, m, cpu);
        runs.add(r);
        csv.write(r, workload.unit());
        log(
                "%s / %s / %s / %s rep %d: %,.0f %s  (p50 %.0f µs, busy %.0f%%, steal %.1f%%)  %s",
                target.name(),
                workload.name(),
                point.label(),
                variant,
                rep,
                m.value(),
                workload.unit(),
                m.latency().p50Micros(),
                cpu.busy(),
                cpu.steal(),
                m.check());
    }

    static void log(String format, Object... args) {
        System.out.printf(
                Locale.ROOT, "[bench %tT] %s%n", System.currentTimeMillis(), String.format(Locale.ROOT, format, args));
    }
}
