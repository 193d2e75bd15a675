package dev.baton.bench;

import dev.baton.bench.jmh.JmhSuite;
import dev.baton.bench.report.LineChart;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/** Writes {@code summary.md} and the charts of one invocation. */
final class Summary {
    /** A guarded CAS round trip at c=1 measured once on this machine (PostgreSQL, durable commit). */
    static final double FALLBACK_ROUND_TRIP_MICROS = 408;

    private final Options options;
    private final Path dir;
    private final StringBuilder md = new StringBuilder();

    Summary(Options options, Path dir) {
        this.options = options;
        this.dir = dir;
    }

    /** Everything the summary needs to know about the invocation. */
    record Context(
            Instant start,
            Instant end,
            CpuStat.Usage whole,
            String loadStart,
            String loadEnd,
            List<Target> targets,
            Map<String, String> skipped,
            List<Workload> workloads,
            List<Run> runs,
            List<String> notes,
            List<JmhSuite.Row> jmh) {}

    void write(Context ctx) throws IOException {
        md.append("# Baton benchmarks, ").append(ctx.start().toString(), 0, 16).append(" UTC\n\n");
        md.append("Command: `java -cp 'bench/target/classes:bench/target/lib/*' dev.baton.bench.Main ")
                .append(String.join(" ", options.commandLine()))
                .append("`  \n");
        md.append(String.format(
                Locale.ROOT,
                "Duration: %s. Machine: %s, %d CPUs, %s %s; load average at start %s, at end %s.  \n",
                fmtDuration(Duration.between(ctx.start(), ctx.end())),
                cpuModel(),
                Runtime.getRuntime().availableProcessors(),
                System.getProperty("os.name"),
                System.getProperty("os.version"),
                ctx.loadStart(),
                ctx.loadEnd()));
        md.append(String.format(
                Locale.ROOT,
                "CPU over the whole invocation: busy %.0f %%, iowait %.0f %%, **steal %.1f %%** (from /proc/stat).  \n",
                ctx.whole().busy(),
                ctx.whole().iowait(),
                ctx.whole().steal()));
        md.append("JVM: ")
                .append(System.getProperty("java.vm.name"))
                .append(' ')
                .append(System.getProperty("java.runtime.version"))
                .append(", heap max ")
                .append(Runtime.getRuntime().maxMemory() / (1024 * 1024))
                .append(" MB. Client (this JVM) and servers share the same CPUs.\n\n");
        if (!ctx.targets().isEmpty() || !ctx.skipped().isEmpty()) {
            md.append("| database | URL | settings |\n|---|---|---|\n");
            for (Target t : ctx.targets()) {
                md.append("| ")
                        .append(t.name())
                        .append(" | `")
                        .append(t.url())
                        .append("` | ")
                        .append(settings(t.settings()))
                        .append(" |\n");
            }
            ctx.skipped().forEach((name, why) -> md.append("| ")
                    .append(name)
                    .append(" | | **skipped**: ")
                    .append(why.replace('|', '/').replace('\n', ' '))
                    .append(" |\n"));
            md.append('\n');
        }
        if (ctx.runs().isEmpty()) {
            if (!ctx.jmh().isEmpty()) {
                jmh(ctx);
            }
            Files.writeString(dir.resolve("summary.md"), md.toString());
            return;
        }
        md.append("Every figure is the median of the runs (")
                .append(options.reps())
                .append(
                        " per configuration unless a workload says otherwise) from this one invocation; the repetitions are interleaved (all configurations of")
                .append(" repetition 1, then of 2, …) and the order of the variants alternates between repetitions.")
                .append(" CPU columns: median busy % / median iowait % / **max** steal % over the runs; JVM = the")
                .append(" share of all CPUs used by this client JVM (Baton or raw JDBC, driver, pool, harness).\n\n");
        for (Workload w : ctx.workloads()) {
            workload(w, ctx);
        }
        if (!ctx.jmh().isEmpty()) {
            jmh(ctx);
        }
        if (!ctx.notes().isEmpty()) {
            md.append("## Final checks\n\n");
            for (String n : ctx.notes()) {
                md.append("- ").append(n).append('\n');
            }
            md.append('\n');
        }
        md.append("## Caveats\n\n")
                .append("- Shared 2-core VM: other engineers' builds and tests run on the same CPUs and the same")
                .append(" database servers; steal and load are recorded above and per run in `results.csv`. Compare")
                .append(" ratios within one invocation, not absolute figures across invocations.\n")
                .append("- Client and servers share the CPUs, so client-side CPU (Baton's included) competes with")
                .append(" the servers; at high concurrency the machine is CPU-bound.\n")
                .append("- Server settings are whatever the servers run with (table above).\n");
        Files.writeString(dir.resolve("summary.md"), md.toString());
    }

    private void workload(Workload w, Context ctx) throws IOException {
        List<Run> runs =
                ctx.runs().stream().filter(r -> r.workload().equals(w.name())).toList();
        if (runs.isEmpty()) {
            return;
        }
        md.append("## Workload `").append(w.name()).append("`\n\n");
        md.append(w.description(options).trim()).append("\n\n");
        boolean cpuPerOp = runs.stream().anyMatch(r -> !Double.isNaN(r.m().cpuMicrosPerOp()));
        md.append("| db | point | variant | ")
                .append(w.unit())
                .append(" median | runs min..max | CPU busy / iowait / max steal % | JVM CPU % |")
                .append(" latency mean / p50 / p99 µs |")
                .append(cpuPerOp ? " client CPU µs/op | client bytes/op |" : "")
                .append(" failures | verified |\n");
        md.append("|---|---|---|---:|---|---|---:|---|")
                .append(cpuPerOp ? "---:|---:|" : "")
                .append("---:|---|\n");
        Map<String, List<Run>> groups = group(runs);
        for (Map.Entry<String, List<Run>> e : groups.entrySet()) {
            List<Run> g = e.getValue();
            Run first = g.get(0);
            List<Double> values = values(g, r -> r.m().value());
            long failures = g.stream().mapToLong(r -> r.m().failures()).sum();
            boolean ok = failures == 0 && g.stream().allMatch(r -> r.m().check().startsWith("ok"));
            md.append(String.format(
                    Locale.ROOT,
                    "| %s | %s | %s | **%,.0f** | %,.0f..%,.0f | %.0f / %.0f / %.1f | %.0f | %s |%s %d | %s |\n",
                    first.target(),
                    first.point().label(),
                    first.variant(),
                    Stats.median(values),
                    Stats.min(values),
                    Stats.max(values),
                    Stats.median(values(g, r -> r.cpu().busy())),
                    Stats.median(values(g, r -> r.cpu().iowait())),
                    Stats.max(values(g, r -> r.cpu().steal())),
                    Stats.median(values(g, r -> r.cpu().jvm())),
                    latency(g),
                    cpuPerOp
                            ? String.format(
                                    Locale.ROOT,
                                    " %s | %s |",
                                    micros(Stats.median(values(g, r -> r.m().cpuMicrosPerOp()))),
                                    bytes(Stats.median(values(g, r -> r.m().allocatedBytesPerOp()))))
                            : "",
                    failures,
                    ok ? "yes (" + g.size() + " runs)" : "**NO**: " + firstBad(g)));
        }
        md.append('\n');
        ratios(w, runs);
        charts(w, runs);
    }

    private void ratios(Workload w, List<Run> runs) throws IOException {
        List<String[]> rows = new ArrayList<>();
        LineChart chart = new LineChart(
                w.name() + ": median of the per-repetition ratios (whiskers: min..max)",
                runs.get(0).point().axis(),
                "ratio");
        boolean cpuColumn = runs.stream().anyMatch(r -> !Double.isNaN(r.m().cpuMicrosPerOp()));
        int colour = 0;
        for (Workload.Ratio ratio : w.ratios()) {
            Set<String> targets = new LinkedHashSet<>();
            runs.forEach(r -> targets.add(r.target()));
            for (String target : targets) {
                Map<String, List<LineChart.P>> lines = new LinkedHashMap<>(); // by Point.series
                Map<Long, Point> pointsByX = new LinkedHashMap<>();
                runs.stream()
                        .filter(r -> r.target().equals(target))
                        .forEach(r -> pointsByX.put(r.point().x(), r.point()));
                for (Point p : pointsByX.values()) {
                    List<Double> perRep = new ArrayList<>();
                    List<Double> nums = new ArrayList<>();
                    List<Double> dens = new ArrayList<>();
                    for (int rep = 1; rep <= w.reps(options); rep++) {
                        Double n = value(runs, target, p, ratio.numerator(), rep);
                        Double d = value(runs, target, p, ratio.denominator(), rep);
                        if (n != null) {
                            nums.add(n);
                        }
                        if (d != null) {
                            dens.add(d);
                        }
                        if (n != null && d != null) {
                            perRep.add(n / d);
                        }
                    }
                    if (perRep.isEmpty()) {
                        continue;
                    }
                    double med = Stats.median(perRep);
                    double ofMedians = Stats.median(nums) / Stats.median(dens);
                    StringBuilder reps = new StringBuilder();
                    for (double r : perRep) {
                        reps.append(reps.length() == 0 ? "" : ", ").append(String.format(Locale.ROOT, "%.3f", r));
                    }
                    boolean met = w.higherIsBetter() ? med >= ratio.target() : med <= 1 / ratio.target();
                    String verdict = !ratio.numerator().equals("baton")
                            ? ""
                            : String.format(
                                    Locale.ROOT,
                                    "%s %.2f: %s",
                                    w.higherIsBetter() ? "≥" : "≤",
                                    w.higherIsBetter() ? ratio.target() : 1 / ratio.target(),
                                    met ? "yes" : "**no**");
                    double cpuN = cpu(runs, target, p, ratio.numerator());
                    double cpuD = cpu(runs, target, p, ratio.denominator());
                    String cpuCell = Double.isNaN(cpuN) || Double.isNaN(cpuD)
                            ? "–"
                            : String.format(
                                    Locale.ROOT,
                                    "%+.2f (%s vs %s, %.2f×)",
                                    cpuN - cpuD,
                                    micros(cpuN),
                                    micros(cpuD),
                                    cpuN / cpuD);
                    List<String> row = new ArrayList<>(List.of(
                            target,
                            p.label(),
                            ratio.numerator() + " / " + ratio.denominator(),
                            String.format(Locale.ROOT, "**%.3f**", med),
                            reps.toString(),
                            String.format(Locale.ROOT, "%.3f", ofMedians),
                            verdict));
                    if (cpuColumn) {
                        row.add(cpuCell);
                    }
                    rows.add(row.toArray(new String[0]));
                    lines.computeIfAbsent(p.series(), k -> new ArrayList<>())
                            .add(new LineChart.P(p.plotX(), med, Stats.min(perRep), Stats.max(perRep)));
                }
                for (Map.Entry<String, List<LineChart.P>> line : lines.entrySet()) {
                    chart.add(new LineChart.Series(
                            target + " " + ratio.numerator() + "/" + ratio.denominator()
                                    + (line.getKey().isEmpty() ? "" : " " + line.getKey()),
                            colour++,
                            false,
                            line.getValue()));
                }
            }
        }
        if (rows.isEmpty()) {
            return;
        }
        md.append(
                "Ratios: the median of the per-repetition ratios, each from the two variants of one repetition (measured in the same timed run, or back to back with `--alternate runs`):\n\n");
        md.append("| db | point | ratio | median | per repetition | ratio of medians | target met |")
                .append(cpuColumn ? " client CPU µs/op, difference (medians) |" : "")
                .append("\n|---|---|---|---:|---|---:|---|")
                .append(cpuColumn ? "---|" : "")
                .append('\n');
        for (String[] r : rows) {
            md.append("| ").append(String.join(" | ", r)).append(" |\n");
        }
        md.append('\n');
        chart.rule(1.0, "1.0").rule(0.95, "0.95").yFromData();
        String file = w.name() + "-ratio.png";
        chart.write(dir.resolve(file), 720, 420);
        md.append("![").append(w.name()).append(" ratios](").append(file).append(")\n\n");
    }

    /** CPU µs per operation: two decimals below 10 µs (the claim workloads' rows), else one. */
    private static String micros(double v) {
        return Double.isNaN(v) ? "–" : String.format(Locale.ROOT, v < 10 ? "%.2f" : "%.1f", v);
    }

    private static String bytes(double v) {
        return Double.isNaN(v) ? "–" : String.format(Locale.ROOT, "%,.0f", v);
    }

    private void charts(Workload w, List<Run> runs) throws IOException {
        boolean grid = runs.stream().anyMatch(r -> !r.point().series().isEmpty());
        if (!grid) {
            chart(w, runs, w.name(), "");
            return;
        }
        // a grid of two parameters (e.g. batch × workers): one chart per database, one colour per line of the grid
        Set<String> targets = new LinkedHashSet<>();
        runs.forEach(r -> targets.add(r.target()));
        for (String target : targets) {
            chart(
                    w,
                    runs.stream().filter(r -> r.target().equals(target)).toList(),
                    w.name() + "-" + target,
                    target + " ");
        }
    }

    private void chart(Workload w, List<Run> runs, String name, String titlePrefix) throws IOException {
        Map<String, List<Run>> groups = group(runs);
        Map<String, List<LineChart.P>> series = new LinkedHashMap<>();
        Map<String, Integer> colours = new LinkedHashMap<>(); // grid line -> palette index
        String axis = runs.get(0).point().axis();
        for (List<Run> g : groups.values()) {
            Run first = g.get(0);
            List<Double> values = values(g, r -> r.m().value());
            String line = first.point().series();
            String key = line.isEmpty() ? first.target() + " " + first.variant() : first.variant() + " " + line;
            colours.putIfAbsent(line.isEmpty() ? key : line, colours.size());
            series.computeIfAbsent(key, k -> new ArrayList<>())
                    .add(new LineChart.P(
                            first.point().plotX(), Stats.median(values), Stats.min(values), Stats.max(values)));
        }
        LineChart chart = new LineChart(
                titlePrefix + w.name() + ": median " + w.unit() + " (whiskers: min..max of " + w.reps(options)
                        + " runs)",
                axis,
                w.unit());
        for (Map.Entry<String, List<LineChart.P>> e : series.entrySet()) {
            String key = e.getKey();
            String line = key.substring(key.indexOf(' ') + 1);
            int colour = colours.containsKey(line) ? colours.get(line) : colours.getOrDefault(key, 0);
            boolean baton = key.startsWith("baton ") || key.contains(" baton");
            chart.add(new LineChart.Series(key, colour, !baton, e.getValue()));
        }
        String file = name + ".png";
        chart.write(dir.resolve(file), 720, 440);
        md.append("![").append(name).append("](").append(file).append(")\n\n");
    }

    private void jmh(Context ctx) {
        md.append("## JMH: in-process paths (no database)\n\n");
        double roundTrip = FALLBACK_ROUND_TRIP_MICROS;
        String source = "a PostgreSQL c=1 round trip measured once on this machine";
        for (Run r : ctx.runs()) {
            if (r.workload().equals("transition")
                    && r.point().x() == 1
                    && r.variant().equals("raw")) {
                roundTrip = Stats.median(values(
                        ctx.runs().stream()
                                .filter(x -> x.workload().equals("transition")
                                        && x.point().x() == 1
                                        && x.variant().equals("raw")
                                        && x.target().equals(r.target()))
                                .toList(),
                        x -> x.m().latency().meanMicros()));
                source = "the raw c=1 mean latency on " + r.target() + " in this run";
                break;
            }
        }
        md.append(JmhSuite.DESCRIPTION).append("\n\n");
        md.append(String.format(Locale.ROOT, "Share of a DB round trip: against %.0f µs (%s).\n\n", roundTrip, source));
        md.append("| benchmark | params | ns/op | ± (99.9 %) | share of a round trip |\n|---|---|---:|---:|---:|\n");
        for (JmhSuite.Row r : ctx.jmh()) {
            md.append(String.format(
                    Locale.ROOT,
                    "| `%s` | %s | %,.1f | %,.1f | %.4f %% |\n",
                    r.benchmark(),
                    r.params(),
                    r.score(),
                    r.error(),
                    100.0 * r.score() / (roundTrip * 1000)));
        }
        md.append('\n');
    }

    private static String latency(List<Run> g) {
        double mean = Stats.median(values(g, r -> r.m().latency().meanMicros()));
        if (Double.isNaN(mean)) {
            return "–";
        }
        return String.format(
                Locale.ROOT,
                "%,.0f / %,.0f / %,.0f",
                mean,
                Stats.median(values(g, r -> r.m().latency().p50Micros())),
                Stats.median(values(g, r -> r.m().latency().p99Micros())));
    }

    private static String firstBad(List<Run> g) {
        for (Run r : g) {
            if (r.m().failures() != 0 || !r.m().check().startsWith("ok")) {
                return "rep " + r.rep() + ": " + r.m().check();
            }
        }
        return "";
    }

    private static double cpu(List<Run> runs, String target, Point p, String variant) {
        List<Double> v = new ArrayList<>();
        for (Run r : runs) {
            if (r.target().equals(target) && r.point().equals(p) && r.variant().equals(variant)) {
                v.add(r.m().cpuMicrosPerOp());
            }
        }
        return Stats.median(v);
    }

    private static Double value(List<Run> runs, String target, Point p, String variant, int rep) {
        for (Run r : runs) {
            if (r.target().equals(target) && r.point().equals(p) && r.variant().equals(variant) && r.rep() == rep) {
                return r.m().value();
            }
        }
        return null;
    }

    /** Runs grouped by target, point and variant, in first-seen order of target, then point, then variant. */
    private static Map<String, List<Run>> group(List<Run> runs) {
        List<String> targets = new ArrayList<>();
        List<Point> points = new ArrayList<>();
        List<String> variants = new ArrayList<>();
        for (Run r : runs) {
            if (!targets.contains(r.target())) {
                targets.add(r.target());
            }
            if (!points.contains(r.point())) {
                points.add(r.point());
            }
            if (r.rep() == 1 && !variants.contains(r.variant())) {
                variants.add(r.variant());
            }
        }
        for (Run r : runs) {
            if (!variants.contains(r.variant())) {
                variants.add(r.variant());
            }
        }
        Map<String, List<Run>> out = new LinkedHashMap<>();
        for (String t : targets) {
            for (Point p : points) {
                for (String v : variants) {
                    List<Run> g = runs.stream()
                            .filter(r -> r.target().equals(t)
                                    && r.point().equals(p)
                                    && r.variant().equals(v))
                            .toList();
                    if (!g.isEmpty()) {
                        out.put(t + "|" + p.label() + "|" + v, g);
                    }
                }
            }
        }
        return out;
    }

    private static List<Double> values(List<Run> runs, java.util.function.ToDoubleFunction<Run> f) {
        List<Double> out = new ArrayList<>();
        for (Run r : runs) {
            out.add(f.applyAsDouble(r));
        }
        return out;
    }

    private static String settings(Map<String, String> s) {
        StringBuilder sb = new StringBuilder();
        s.forEach((k, v) -> sb.append(sb.length() == 0 ? "" : ", ")
                .append(k.equals("version") ? "" : k + "=")
                .append(k.equals("version") ? shortVersion(v) : v));
        return sb.toString().replace('|', '/');
    }

    private static String shortVersion(String v) {
        int comma = v.indexOf(" on ");
        return comma > 0 ? v.substring(0, comma) : v;
    }

    static String cpuModel() {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/cpuinfo"))) {
                if (line.startsWith("model name")) {
                    return line.substring(line.indexOf(':') + 1).trim();
                }
            }
        } catch (IOException e) {
            // not Linux
        }
        return System.getProperty("os.arch");
    }

    static String fmtDuration(Duration d) {
        return String.format(Locale.ROOT, "%d min %02d s", d.toMinutes(), d.toSecondsPart());
    }
}
