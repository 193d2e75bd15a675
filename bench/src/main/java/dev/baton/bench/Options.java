package dev.baton.bench;

import java.nio.file.Path;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Command-line settings of one benchmark invocation. Defaults are the full run (8 to 9.5 minutes on the 2-core machine);
 * {@code --quick} shrinks durations and sizes to about 2 minutes.
 */
public record Options(
        Path out,
        boolean quick,
        List<String> workloads,
        List<String> targets,
        String pgUrl,
        String pgUser,
        String pgPassword,
        String mariadbUrl,
        String mariadbUser,
        String mariadbPassword,
        int reps,
        double warmupSeconds,
        double measureSeconds,
        double jitWarmupSeconds,
        int rows,
        List<Integer> concurrency,
        int tasks,
        List<Integer> drainThreads,
        int poolSize,
        boolean slices,
        List<String> commandLine) {

    /** Every workload, in one invocation of 8 to 9.5 minutes on the 2-core machine. */
    static final List<String> DEFAULT_WORKLOADS =
            List.of("transition", "claim", "claim-latency", "outbox", "drain", "jmh");

    static final String USAGE =
            """
            Usage: java -cp 'bench/target/classes:bench/target/lib/*' dev.baton.bench.Main [options]

              --out DIR              where to write summary.md, results.csv, *.png
                                     (default bench/results/<yyyyMMdd-HHmmss>[-quick|-jmh])
              --quick                shorter transition runs (0.5 s warm-up + 1 s), 50k rows, 10k tasks
              --jmh                  only the JMH suite of in-process paths (same as --workloads jmh)
              --workloads LIST       comma-separated, default transition,claim,claim-latency,outbox,drain,jmh;
                                     also: transition-mixed
              --targets LIST         comma-separated, default postgres,mariadb
              --pg-url URL           default jdbc:postgresql://127.0.0.1:5432/test
              --pg-user U            default postgres
              --pg-password P        default empty
              --mariadb-url URL      default jdbc:mariadb://127.0.0.1:3306/test (MySQL 8 URLs work too)
              --mariadb-user U       default root
              --mariadb-password P   default empty
              --reps N               repetitions of every configuration (default 3; the median is reported)
              --warmup S             seconds of unmeasured load at the start of each run (default 1)
              --measure S            measured seconds per run and variant (default 2)
              --rows N               rows in the transition table (default 100000)
              --concurrency LIST     threads for the transition workload (default 1,4,16)
              --tasks N              tasks per drain run (default 40000)
              --drain-threads LIST   worker threads of the drain workload (default 8)
              --pool N               connections per database pool (default 24)
              --alternate MODE       slices (default): where a workload can, its variants alternate every ~200 ms
                                     inside one timed run (A B B A …); runs: one whole run per variant
            """;

    /** Parses arguments; throws IllegalArgumentException with a message for the user. */
    static Options parse(String[] args) {
        boolean quick = Arrays.asList(args).contains("--quick");
        boolean jmh = Arrays.asList(args).contains("--jmh");
        Path out = null;
        List<String> workloads = jmh ? List.of("jmh") : DEFAULT_WORKLOADS;
        List<String> targets = List.of("postgres", "mariadb");
        String pgUrl = "jdbc:postgresql://127.0.0.1:5432/test";
        String pgUser = "postgres";
        String pgPassword = "";
        String mUrl = "jdbc:mariadb://127.0.0.1:3306/test";
        String mUser = "root";
        String mPassword = "";
        int reps = 3;
        double warmup = quick ? 0.5 : 1;
        double measure = quick ? 1 : 2;
        double jit = quick ? 1 : 3;
        int rows = quick ? 50_000 : 100_000;
        List<Integer> concurrency = List.of(1, 4, 16);
        int tasks = quick ? 10_000 : 40_000;
        List<Integer> drainThreads = List.of(8);
        int pool = 24;
        boolean slices = true;
        for (int i = 0; i < args.length; i++) {
            String a = args[i];
            switch (a) {
                case "--quick", "--jmh" -> {}
                case "--help", "-h" -> throw new IllegalArgumentException(USAGE);
                case "--out" -> out = Path.of(value(args, ++i, a));
                case "--workloads" -> workloads = List.of(value(args, ++i, a).split(","));
                case "--targets" -> targets = List.of(value(args, ++i, a).split(","));
                case "--pg-url" -> pgUrl = value(args, ++i, a);
                case "--pg-user" -> pgUser = value(args, ++i, a);
                case "--pg-password" -> pgPassword = value(args, ++i, a);
                case "--mariadb-url", "--mysql-url" -> mUrl = value(args, ++i, a);
                case "--mariadb-user", "--mysql-user" -> mUser = value(args, ++i, a);
                case "--mariadb-password", "--mysql-password" -> mPassword = value(args, ++i, a);
                case "--reps" -> reps = positive(value(args, ++i, a), a);
                case "--warmup" -> warmup = Double.parseDouble(value(args, ++i, a));
                case "--measure" -> measure = Double.parseDouble(value(args, ++i, a));
                case "--jit-warmup" -> jit = Double.parseDouble(value(args, ++i, a));
                case "--rows" -> rows = positive(value(args, ++i, a), a);
                case "--concurrency" -> concurrency = ints(value(args, ++i, a), a);
                case "--tasks" -> tasks = positive(value(args, ++i, a), a);
                case "--drain-threads" -> drainThreads = ints(value(args, ++i, a), a);
                case "--pool" -> pool = positive(value(args, ++i, a), a);
                case "--alternate" -> {
                    String m = value(args, ++i, a);
                    if (!m.equals("slices") && !m.equals("runs")) {
                        throw new IllegalArgumentException("--alternate is slices or runs, was " + m);
                    }
                    slices = m.equals("slices");
                }
                default -> throw new IllegalArgumentException("unknown option " + a + "\n\n" + USAGE);
            }
        }
        int maxThreads = concurrency.stream().mapToInt(Integer::intValue).max().orElse(1);
        if (pool < maxThreads) {
            throw new IllegalArgumentException(
                    "--pool " + pool + " is smaller than the largest concurrency " + maxThreads);
        }
        if (out == null) {
            String stamp = LocalDateTime.now().format(DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss"));
            String suffix = workloads.equals(List.of("jmh")) ? "-jmh" : quick ? "-quick" : "";
            out = Path.of("bench", "results", stamp + suffix);
        }
        return new Options(
                out,
                quick,
                workloads,
                targets,
                pgUrl,
                pgUser,
                pgPassword,
                mUrl,
                mUser,
                mPassword,
                reps,
                warmup,
                measure,
                jit,
                rows,
                concurrency,
                tasks,
                drainThreads,
                pool,
                slices,
                List.of(args));
    }

    private static String value(String[] args, int i, String option) {
        if (i >= args.length) {
            throw new IllegalArgumentException(option + " needs a value");
        }
        return args[i];
    }

    private static int positive(String v, String option) {
        int n = Integer.parseInt(v.replace("_", ""));
        if (n < 1) {
            throw new IllegalArgumentException(option + " must be at least 1, was " + v);
        }
        return n;
    }

    private static List<Integer> ints(String v, String option) {
        List<Integer> out = new ArrayList<>();
        for (String s : v.split(",")) {
            out.add(positive(s.trim(), option));
        }
        return List.copyOf(out);
    }
}
