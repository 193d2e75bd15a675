package dev.baton.bench.jmh;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.results.format.ResultFormatType;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.RunnerException;
import org.openjdk.jmh.runner.options.ChainedOptionsBuilder;
import org.openjdk.jmh.runner.options.OptionsBuilder;
import org.openjdk.jmh.runner.options.TimeValue;

/** Runs the JMH benchmarks of this package: 1 fork, short iterations (the numbers are ns, the question is "≪ 400 µs"). */
public final class JmhSuite {
    /** For the summary. */
    public static final String DESCRIPTION =
            "JMH 1.37, average time per call, 1 fork, one thread. `TransitionBenchmarks`"
                    + " binds the README's payment machine (string codes) to `orders` on a stub JDBC driver that does nothing"
                    + " (dynamic proxies: some ns per JDBC call, paid by both sides): `applyOnStubDriver` is Baton's whole"
                    + " client-side cost of `transition(…).apply()` except the real driver and pool, `rawOnStubDriver` is"
                    + " hand-written JDBC doing the same calls; their difference is what Baton adds per transition."
                    + " `cachedSql*` is `transition(…).sql()` on repeated calls (cache key + lookup; rendered once)."
                    + " `ReplicaBenchmarks` copy three steps of `Transition`/`StateTable` that a profile of `apply()` showed"
                    + " (operation text, copies of the source states, string cache key), to price them."
                    + " `ClaimBenchmarks` run a 100-row claim (`claim100`: binds, statement, 100 rows mapped to"
                    + " `ClaimedRow`s) and its completion (`completeAll100`: one fenced statement) on a stub returning 100"
                    + " rows, next to the same calls by hand (`raw*`); divide by 100 for the cost per row.";

    private JmhSuite() {}

    /**
     * One benchmark result.
     *
     * @param benchmark class.method
     * @param params JMH parameters, e.g. {@code dialect=postgres}
     * @param score mean ns/op
     * @param error half-width of the 99.9 % interval
     */
    public record Row(String benchmark, String params, double score, double error) {}

    /** Runs the suite; writes JMH's JSON next to the summary. */
    public static List<Row> run(boolean quick, Path dir) throws RunnerException {
        ChainedOptionsBuilder b = new OptionsBuilder()
                .include(JmhSuite.class.getPackageName() + "\\..*Benchmarks\\..*")
                .forks(1)
                .threads(1)
                .jvmArgsAppend("-Xmx256m")
                .result(dir.resolve("jmh.json").toString())
                .resultFormat(ResultFormatType.JSON);
        if (quick) {
            b.warmupIterations(1)
                    .warmupTime(TimeValue.milliseconds(500))
                    .measurementIterations(2)
                    .measurementTime(TimeValue.milliseconds(500));
        } else {
            b.warmupIterations(2)
                    .warmupTime(TimeValue.seconds(1))
                    .measurementIterations(3)
                    .measurementTime(TimeValue.seconds(1));
        }
        Collection<RunResult> results = new Runner(b.build()).run();
        List<Row> rows = new ArrayList<>();
        for (RunResult r : results) {
            String name = r.getParams().getBenchmark();
            name = name.substring(name.lastIndexOf('.', name.lastIndexOf('.') - 1) + 1);
            Map<String, String> params = new TreeMap<>();
            for (String k : r.getParams().getParamsKeys()) {
                params.put(k, r.getParams().getParam(k));
            }
            StringBuilder p = new StringBuilder();
            params.forEach((k, v) ->
                    p.append(p.length() == 0 ? "" : ", ").append(k).append('=').append(v));
            rows.add(new Row(
                    name,
                    p.toString(),
                    r.getPrimaryResult().getScore(),
                    r.getPrimaryResult().getScoreError()));
        }
        return rows;
    }
}
