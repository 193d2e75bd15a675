package dev.baton.bench;

import java.util.List;

/**
 * One kind of measurement, run against each {@link Target} it supports. The {@link Runner} does everything around it:
 * repetitions (all points and variants of repetition 1, then of 2, …), alternating the order of variants from one
 * repetition to the next, CPU sampling, medians, ratios, CSV, Markdown and charts. A workload only prepares its tables
 * and performs one timed run at a time.
 *
 * <p>To add one (claim+complete, claim latency against backlog, outbox, …): implement this interface in
 * {@code dev.baton.bench.workload}, register it in {@link dev.baton.bench.workload.Workloads}, and it appears in the
 * summary, the CSV and the charts.
 */
public interface Workload {

    /** Short name, used on the command line ({@code --workloads}) and in file names. */
    String name();

    /** One paragraph for the summary: what exactly each variant executes, and how it is verified. */
    String description(Options options);

    /** Whether this workload runs on the target (db-scheduler's lock-and-fetch runs on PostgreSQL only); default all. */
    default boolean supports(Target target) {
        return true;
    }

    /**
     * The variants compared at every point, e.g. {@code baton}, {@code raw}, {@code db-scheduler}. Odd repetitions run
     * them in this order, even repetitions in reverse.
     */
    default List<String> variants(Target target) {
        return List.of("baton", "raw");
    }

    /** The points of the x axis, e.g. concurrency 1, 4, 16, or backlog 10k, 100k, 1M. */
    List<Point> points(Options options);

    /**
     * The ratios to report, numerator first: {@code new Ratio("baton", "raw")}. A ratio is reported where both
     * variants ran. Default: {@code baton / raw}, target 0.95.
     */
    default List<Ratio> ratios() {
        return List.of(new Ratio("baton", "raw"));
    }

    /** What {@link Measurement#value()} is, for table headers and chart axes, e.g. {@code transitions/s}. */
    String unit();

    /** Repetitions of every point and variant; default {@code --reps}. */
    default int reps(Options options) {
        return options.reps();
    }

    /**
     * True when all repetitions of a point run back to back before the next point (for points whose tables are too big
     * to build again per repetition); by default repetition 1 covers every point, then repetition 2, and so on.
     */
    default boolean repeatsPointInPlace() {
        return false;
    }

    /** True when a larger {@link Measurement#value()} is better (throughput), false for latencies. */
    default boolean higherIsBetter() {
        return true;
    }

    /** Creates and fills tables, warms up the JIT; once per target, before the first repetition. Untimed. */
    void prepare(Target target, Options options) throws Exception;

    /**
     * One timed run. Must call {@link Probe#quiesce} before, and {@link Probe#begin()} and {@link Probe#end()}
     * exactly around, the timed part, so CPU and steal figures cover the same interval.
     */
    Measurement run(Target target, String variant, Point point, Options options, Probe probe) throws Exception;

    /**
     * True when the variants can share one timed run, alternating in slices of about 200 ms (see {@link ClosedLoop});
     * the {@link Runner} then calls {@link #runInterleaved} instead of {@link #run} unless {@code --alternate runs}.
     */
    default boolean canInterleave() {
        return false;
    }

    /** True when the variants are only ever measured together ({@code --alternate runs} does not apply). */
    default boolean interleavesOnly() {
        return false;
    }

    /**
     * One timed run of all the variants interleaved; same contract as {@link #run}, one measurement per variant, in
     * the order given.
     */
    default List<Measurement> runInterleaved(
            Target target, List<String> variants, Point point, Options options, Probe probe) throws Exception {
        throw new UnsupportedOperationException(name() + " cannot interleave its variants");
    }

    /** Final checks and cleanup after the last repetition on a target; returns a line for the summary. */
    default String finish(Target target) throws Exception {
        return "";
    }

    /**
     * A ratio of the median values of two variants at the same point, and the target a {@code baton / …} ratio must
     * reach: at least {@code target} for throughputs; for latencies, at most {@code 1 / target}.
     */
    record Ratio(String numerator, String denominator, double target) {
        /** A ratio with the default target, 0.95. */
        public Ratio(String numerator, String denominator) {
            this(numerator, denominator, 0.95);
        }
    }
}
