package dev.baton.testkit;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.function.Function;

/**
 * Reduces a failing sequence of operations to a locally minimal failing one before it is reported, by delta
 * debugging (Zeller's ddmin on complements): drop chunks of operations, halving the chunk size when no chunk can go,
 * down to single operations, re-running every candidate from scratch. It stops when no single operation can be
 * dropped (1-minimal: every kept operation is needed for the failure) or when the time budget is spent, and says
 * which.
 *
 * <pre>{@code
 * Shrinker.Result<Op> r = Shrinker.shrink(ops, candidate -> runOnFreshTable(candidate), Duration.ofSeconds(60));
 * throw new AssertionError("minimal failing sequence " + r.minimal() + " (kept steps " + r.kept() + ")", r.failure());
 * }</pre>
 *
 * <p>The property is a function that runs a candidate and returns its failure, or null when it passes; it must be
 * deterministic for a given candidate (start from a fresh state every time). Any failure counts, not only the first
 * one's kind. Stateless and thread-safe.
 */
public final class Shrinker {
    private Shrinker() {}

    /**
     * A shrunk sequence.
     *
     * @param minimal the kept operations, in their original order
     * @param kept their indexes in the original sequence, ascending (replay the original seed keeping these)
     * @param failure the failure of {@code minimal}
     * @param runs how many candidates were run
     * @param complete true when {@code minimal} is 1-minimal, false when the time budget ran out first
     * @param <T> the operation type
     */
    public record Result<T>(List<T> minimal, List<Integer> kept, Throwable failure, int runs, boolean complete) {}

    /**
     * Shrinks {@code failing}.
     *
     * @param failing a sequence whose run fails
     * @param property runs a candidate and returns its failure, or null when the candidate passes
     * @param budget how long to keep trying; the best sequence found so far is returned when it is spent
     * @param <T> the operation type
     * @return the shrunk sequence
     * @throws IllegalArgumentException if {@code failing} does not fail
     */
    public static <T> Result<T> shrink(List<T> failing, Function<List<T>, Throwable> property, Duration budget) {
        Objects.requireNonNull(failing, "failing");
        Objects.requireNonNull(property, "property");
        long deadline = System.nanoTime() + budget.toNanos();
        List<Integer> current = new ArrayList<>();
        for (int i = 0; i < failing.size(); i++) {
            current.add(i);
        }
        Throwable failure = property.apply(List.copyOf(failing));
        int runs = 1;
        if (failure == null) {
            throw new IllegalArgumentException("the sequence to shrink passes: " + failing);
        }
        int chunks = 2;
        boolean complete = false;
        while (true) {
            if (current.size() <= 1) {
                complete = true;
                break;
            }
            chunks = Math.min(chunks, current.size());
            boolean reduced = false;
            boolean outOfTime = false;
            for (int c = 0; c < chunks; c++) {
                if (System.nanoTime() > deadline) {
                    outOfTime = true;
                    break;
                }
                int from = current.size() * c / chunks;
                int to = current.size() * (c + 1) / chunks;
                List<Integer> candidate = new ArrayList<>(current.subList(0, from));
                candidate.addAll(current.subList(to, current.size()));
                Throwable f = property.apply(pick(failing, candidate));
                runs++;
                if (f != null) {
                    current = candidate;
                    failure = f;
                    chunks = Math.max(chunks - 1, 2);
                    reduced = true;
                    break;
                }
            }
            if (outOfTime) {
                break;
            }
            if (!reduced) {
                if (chunks >= current.size()) {
                    complete = true; // no single operation can go
                    break;
                }
                chunks = Math.min(current.size(), chunks * 2);
            }
        }
        return new Result<>(pick(failing, current), List.copyOf(current), failure, runs, complete);
    }

    private static <T> List<T> pick(List<T> all, List<Integer> indexes) {
        List<T> out = new ArrayList<>(indexes.size());
        for (int i : indexes) {
            out.add(all.get(i));
        }
        return List.copyOf(out);
    }
}
