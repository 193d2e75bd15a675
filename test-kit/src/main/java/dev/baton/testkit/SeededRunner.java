package dev.baton.testkit;

import java.security.SecureRandom;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.random.RandomGenerator;
import org.opentest4j.TestAbortedException;

/**
 * Runs seeded sequences of random operations, for model-based property tests: the body applies {@code steps}
 * random operations both to a pure in-memory model and to the system under test, comparing results after each
 * step. A failing sequence is reported with its seed, and rerunning with {@code -Dbaton.seed=<seed>} replays
 * exactly that sequence (the body must draw every random choice from the generator it is given).
 *
 * <pre>{@code
 * SeededRunner.sequences(50).steps(200).run((random, steps, seed) -> {
 *     Model model = new Model();
 *     for (int i = 0; i < steps; i++) {
 *         Operation op = Operation.random(random);
 *         assertEquals(op.applyTo(model), op.applyTo(database), "step " + i + ": " + op);
 *     }
 * });
 * }</pre>
 *
 * <p>Seeds: sequence {@code i} uses {@code base + i}. The base is {@value #DEFAULT_BASE_SEED} unless
 * {@link #seed(long)} sets another, so runs are reproducible on CI. {@link #randomSequences(int)} adds sequences after
 * the fixed ones, from a base seed drawn anew on every run (so each CI run explores new sequences); a failure among
 * them prints its seed like any other. When the system property {@value #SEED_PROPERTY} is set, only the sequence
 * with that seed runs, whatever the code says ({@value #KEEP_PROPERTY} then names the steps a shrunk failure kept),
 * and {@value #RANDOM_SEQUENCES_PROPERTY} replaces the number of random sequences. Not thread-safe.
 */
public final class SeededRunner {
    /** The system property that replays one sequence: {@code -Dbaton.seed=<seed>}. */
    public static final String SEED_PROPERTY = "baton.seed";

    /**
     * The system property that replays only some steps of the sequence of {@value #SEED_PROPERTY}, by their indexes in
     * the full sequence: {@code -Dbaton.keep=3,17,20} (what a shrunk failure prints). See {@link #keptSteps()}.
     */
    public static final String KEEP_PROPERTY = "baton.keep";

    /**
     * The system property that replaces the number of {@link #randomSequences(int) random sequences}, for a longer
     * search on demand: {@code -Dbaton.randomSequences=2000}.
     */
    public static final String RANDOM_SEQUENCES_PROPERTY = "baton.randomSequences";

    /** The base seed used unless {@link #seed(long)} or {@value #SEED_PROPERTY} says otherwise. */
    public static final long DEFAULT_BASE_SEED = 20261129L;

    /** Steps per sequence unless {@link #steps(int)} says otherwise. */
    public static final int DEFAULT_STEPS = 100;

    private final int sequences;
    private int steps = DEFAULT_STEPS;
    private long baseSeed = DEFAULT_BASE_SEED;
    private int randomSequences;
    private long randomBaseSeed = new SecureRandom().nextLong() >>> 1;
    private int sequencesRun;
    private long stepsRun;

    private SeededRunner(int sequences) {
        this.sequences = sequences;
    }

    /**
     * A runner of the given number of sequences.
     *
     * @param count how many seeded sequences to run, at least 1
     * @return a new runner
     */
    public static SeededRunner sequences(int count) {
        if (count < 1) {
            throw new IllegalArgumentException("count must be at least 1: " + count);
        }
        return new SeededRunner(count);
    }

    /**
     * Sets the number of steps each sequence performs (passed to the body); {@value #DEFAULT_STEPS} by default.
     *
     * @param stepsPerSequence at least 1
     * @return this runner
     */
    public SeededRunner steps(int stepsPerSequence) {
        if (stepsPerSequence < 1) {
            throw new IllegalArgumentException("stepsPerSequence must be at least 1: " + stepsPerSequence);
        }
        this.steps = stepsPerSequence;
        return this;
    }

    /**
     * Sets the base seed: sequence {@code i} uses {@code baseSeed + i}. Ignored when {@value #SEED_PROPERTY} is
     * set.
     *
     * @param baseSeed the seed of the first sequence
     * @return this runner
     */
    public SeededRunner seed(long baseSeed) {
        this.baseSeed = baseSeed;
        return this;
    }

    /**
     * Adds {@code count} sequences after the fixed ones, seeded from a base drawn at random when this runner was made
     * ({@link #randomBaseSeed()}); 0 by default; {@value #RANDOM_SEQUENCES_PROPERTY} overrides it. Ignored when
     * {@value #SEED_PROPERTY} is set.
     *
     * @param count at least 0
     * @return this runner
     */
    public SeededRunner randomSequences(int count) {
        if (count < 0) {
            throw new IllegalArgumentException("count must not be negative: " + count);
        }
        this.randomSequences = count;
        return this;
    }

    /**
     * The base seed of this run's {@link #randomSequences(int) random sequences}.
     *
     * @return the seed; the random sequence {@code i} uses it plus {@code i}
     */
    public long randomBaseSeed() {
        return randomBaseSeed;
    }

    /**
     * Runs every sequence in order, each with a new {@link Random} seeded with its seed, and stops at the first
     * failure.
     *
     * @param body one sequence
     * @throws AssertionError when a sequence throws anything; its message starts with
     *     {@code "sequence failed; replay with -Dbaton.seed=<seed>"} and the failure is its cause. An aborted
     *     test ({@link TestAbortedException}, from an assumption) passes through unchanged.
     * @throws IllegalArgumentException when {@value #SEED_PROPERTY} is not a number
     */
    public void run(SequenceBody body) {
        String replay = System.getProperty(SEED_PROPERTY);
        long first;
        int count;
        int random = 0;
        if (replay != null && !replay.isBlank()) {
            try {
                first = Long.parseLong(replay.trim());
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException(SEED_PROPERTY + " must be a number: " + replay, e);
            }
            count = 1;
        } else {
            first = baseSeed;
            count = sequences;
            random = randomSequences;
            String more = System.getProperty(RANDOM_SEQUENCES_PROPERTY);
            if (more != null && !more.isBlank()) {
                random = Integer.parseInt(more.trim());
            }
        }
        int total = count + random;
        for (int i = 0; i < total; i++) {
            long seed = i < count ? first + i : randomBaseSeed + (i - count);
            try {
                body.run(new Random(seed), steps, seed);
            } catch (TestAbortedException e) {
                throw e;
            } catch (Throwable e) {
                throw new AssertionError(
                        "sequence failed; replay with -D" + SEED_PROPERTY + "=" + seed + " (sequence " + (i + 1)
                                + " of " + total
                                + (i < count ? ", fixed seeds" : ", random base seed " + randomBaseSeed)
                                + ", " + steps + " steps): " + e,
                        e);
            }
            sequencesRun++;
            stepsRun += steps;
        }
    }

    /**
     * The steps to replay of the sequence of {@value #SEED_PROPERTY}: the indexes {@value #KEEP_PROPERTY} lists, in
     * the order given; empty (replay every step) when either property is not set.
     *
     * @return the indexes
     * @throws NumberFormatException when an index is not a number
     */
    public static List<Integer> keptSteps() {
        String keep = System.getProperty(KEEP_PROPERTY);
        if (keep == null || keep.isBlank() || System.getProperty(SEED_PROPERTY) == null) {
            return List.of();
        }
        return Arrays.stream(keep.split(","))
                .map(s -> Integer.valueOf(s.trim()))
                .toList();
    }

    /**
     * The number of fixed-seed sequences a run performs.
     *
     * @return the count given to {@link #sequences(int)}
     */
    public int fixedSequences() {
        return sequences;
    }

    /**
     * The seed of the first fixed sequence.
     *
     * @return the base seed ({@value #DEFAULT_BASE_SEED} unless {@link #seed(long)} set another)
     */
    public long baseSeed() {
        return baseSeed;
    }

    /**
     * The number of sequences that completed without failure, over every {@link #run(SequenceBody)} call.
     *
     * @return the count
     */
    public int sequencesRun() {
        return sequencesRun;
    }

    /**
     * The number of steps of the sequences that completed, counted as steps per sequence.
     *
     * @return the count
     */
    public long stepsRun() {
        return stepsRun;
    }

    /** One seeded sequence of operations. */
    @FunctionalInterface
    public interface SequenceBody {
        /**
         * Performs one sequence.
         *
         * @param random the only source of random choices, seeded with {@code seed}
         * @param steps how many operations to perform
         * @param seed the seed of {@code random}, for messages
         * @throws Exception any failure, which fails the run and reports the seed
         */
        void run(RandomGenerator random, int steps, long seed) throws Exception;
    }
}
