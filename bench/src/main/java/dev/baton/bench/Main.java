package dev.baton.bench;

import dev.baton.bench.jmh.JmhSuite;
import dev.baton.bench.workload.Workloads;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Runs the benchmarks and writes {@code summary.md}, {@code results.csv} and charts into one directory. See
 * {@code bench/README.md}; {@code --help} lists the options.
 */
public final class Main {
    private Main() {}

    /** Entry point. */
    public static void main(String[] args) throws Exception {
        System.setProperty("java.awt.headless", "true");
        System.setProperty("org.slf4j.simpleLogger.defaultLogLevel", "warn");
        Options o;
        try {
            o = Options.parse(args);
        } catch (IllegalArgumentException e) {
            System.err.println(e.getMessage());
            System.exit(2);
            return;
        }
        Path dir = o.out();
        Files.createDirectories(dir);
        Instant start = Instant.now();
        CpuStat cpu0 = CpuStat.sample();
        String load0 = loadAverage();
        List<Target> targets = new ArrayList<>();
        Map<String, String> skipped = new LinkedHashMap<>();
        List<Workload> workloads = Workloads.named(o.workloads());
        Runner runner;
        List<JmhSuite.Row> jmh = List.of();
        try (Csv csv = new Csv(dir.resolve("results.csv"))) {
            runner = new Runner(o, csv);
            if (!workloads.isEmpty()) {
                for (String name : o.targets()) {
                    Target t = target(name.trim(), o);
                    try {
                        t.open();
                    } catch (Exception e) {
                        t.close();
                        skipped.put(t.name(), t.url() + " does not answer: " + e.getMessage());
                        Runner.log("%s: skipped, %s", t.name(), e.getMessage());
                        continue;
                    }
                    targets.add(t);
                    for (Workload w : workloads) {
                        runner.run(t, w);
                    }
                }
            }
            if (o.workloads().contains("jmh")) {
                Runner.log("JMH suite (in-process, no database)");
                jmh = JmhSuite.run(o.quick() || !workloads.isEmpty(), dir); // the short suite next to databases
                StringBuilder rows = new StringBuilder("benchmark,params,ns_per_op,error_99_9\n");
                for (JmhSuite.Row r : jmh) {
                    rows.append(String.format(
                            java.util.Locale.ROOT,
                            "%s,\"%s\",%.2f,%.2f%n",
                            r.benchmark(),
                            r.params(),
                            r.score(),
                            r.error()));
                }
                Files.writeString(dir.resolve("jmh.csv"), rows.toString());
            }
        } finally {
            for (Target t : targets) {
                t.close();
            }
        }
        if (workloads.isEmpty()) {
            Files.deleteIfExists(dir.resolve("results.csv")); // JMH only: jmh.csv and jmh.json hold the data
        }
        new Summary(o, dir)
                .write(new Summary.Context(
                        start,
                        Instant.now(),
                        CpuStat.sample().since(cpu0),
                        load0,
                        loadAverage(),
                        targets,
                        skipped,
                        workloads,
                        runner.runs(),
                        runner.notes(),
                        jmh));
        Runner.log("wrote %s", dir.resolve("summary.md"));
        boolean failed = runner.runs().stream().anyMatch(r -> r.m().failures() != 0)
                || runner.notes().stream().anyMatch(n -> n.contains("FAILED"));
        if (failed) {
            Runner.log("VERIFICATION FAILED: see summary.md");
            System.exit(1);
        }
    }

    private static Target target(String name, Options o) {
        return switch (name) {
            case "postgres", "pg" ->
                new Target("postgres", Target.Kind.POSTGRES, o.pgUrl(), o.pgUser(), o.pgPassword(), o.poolSize());
            case "mariadb", "mysql" ->
                new Target(
                        "mariadb",
                        Target.Kind.MARIADB,
                        o.mariadbUrl(),
                        o.mariadbUser(),
                        o.mariadbPassword(),
                        o.poolSize());
            default -> throw new IllegalArgumentException("unknown target " + name + " (known: postgres, mariadb)");
        };
    }

    private static String loadAverage() {
        try {
            String[] f = Files.readString(Path.of("/proc/loadavg")).trim().split("\\s+");
            return f[0] + " " + f[1] + " " + f[2];
        } catch (IOException e) {
            return "n/a";
        }
    }
}
