package dev.baton.testkit.compat;

import dev.baton.testkit.SeededRunner;
import dev.baton.testkit.Shrinker;
import java.time.Duration;
import java.util.List;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * The report of a model-based test whose sequence failed: the sequence shrunk to a minimal failing one
 * ({@link Shrinker}), traced step by step, with the properties that replay it. Shared by the model tests of the kit.
 */
final class ModelFailure {
    /** How long a failing sequence is shrunk before the best one found is reported. */
    static final Duration SHRINK_BUDGET = Duration.ofSeconds(60);

    private ModelFailure() {}

    /** One run of a candidate sequence. */
    @FunctionalInterface
    interface Attempt {
        /** Runs it; throws its failure. */
        void run() throws Exception;
    }

    /**
     * Runs {@code attempt}.
     *
     * @return what it threw (a divergence, a broken invariant, any error), or null when it passed
     */
    static Throwable failureOf(Attempt attempt) {
        try {
            attempt.run();
            return null;
        } catch (Throwable e) {
            return e;
        }
    }

    /**
     * Runs one sequence (cut to {@link SeededRunner#keptSteps()} when a shrunk failure is replayed); when it fails,
     * shrinks it and throws the report.
     *
     * @param ops the sequence as drawn
     * @param property runs a candidate on a fresh state: its failure, or null when it passes
     * @param trace runs a candidate once more and returns one line per step run (the rows and values it hit)
     * @param seed the sequence's seed
     * @param replay further {@code -D} properties the replay needs, e.g. {@code " -Dbaton.model.gates=all"}, or ""
     * @param <T> the operation type
     * @throws AssertionError the report, with the minimal sequence's failure as its cause
     */
    static <T> void run(
            List<T> ops,
            Function<List<T>, Throwable> property,
            Function<List<T>, List<String>> trace,
            long seed,
            String replay) {
        List<Integer> keep = SeededRunner.keptSteps();
        List<T> run = keep.isEmpty() ? ops : keep.stream().map(ops::get).toList();
        Throwable failure = property.apply(run);
        if (failure != null) {
            throw shrunk(run, failure, property, trace, seed, replay);
        }
    }

    private static <T> AssertionError shrunk(
            List<T> ops,
            Throwable failure,
            Function<List<T>, Throwable> property,
            Function<List<T>, List<String>> trace,
            long seed,
            String replay) {
        if (property.apply(ops) == null) {
            // the failure did not come back on a replay: nondeterministic (a timing, a fault that landed elsewhere);
            // report the failure as it happened, with the sequence, rather than a shrink of nothing
            AssertionError once = new AssertionError(
                    "model and database diverged once, and the replay of the same "
                            + ops.size() + " steps passed (nondeterministic); replay it with -D"
                            + SeededRunner.SEED_PROPERTY
                            + "=" + seed + replay + "\nthe failure: " + failure + "\nthe steps: " + ops,
                    failure);
            return once;
        }
        Shrinker.Result<T> r = Shrinker.shrink(ops, property, SHRINK_BUDGET);
        List<Integer> keep = SeededRunner.keptSteps();
        List<Integer> kept =
                keep.isEmpty() ? r.kept() : r.kept().stream().map(keep::get).toList();
        StringBuilder report = new StringBuilder("model and database diverged; shrunk from ")
                .append(ops.size())
                .append(" to ")
                .append(r.minimal().size())
                .append(" steps in ")
                .append(r.runs())
                .append(" runs")
                .append(r.complete() ? " (1-minimal)" : " (shrink budget spent)")
                .append(":\n");
        trace.apply(r.minimal()).forEach(t -> report.append("  ").append(t).append('\n'));
        report.append("replay it with -D")
                .append(SeededRunner.SEED_PROPERTY)
                .append('=')
                .append(seed)
                .append(" -D")
                .append(SeededRunner.KEEP_PROPERTY)
                .append('=')
                .append(kept.stream().map(String::valueOf).collect(Collectors.joining(",")))
                .append(replay)
                .append("\nits failure: ")
                .append(r.failure())
                .append("\nthe failure before shrinking: ")
                .append(failure.toString().lines().findFirst().orElse(""));
        return new AssertionError(report.toString(), r.failure());
    }
}
