package dev.baton.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.opentest4j.TestAbortedException;

class SeededRunnerTest {
    private final String replay = System.getProperty(SeededRunner.SEED_PROPERTY);

    @AfterEach
    void restoreProperty() {
        if (replay == null) {
            System.clearProperty(SeededRunner.SEED_PROPERTY);
        } else {
            System.setProperty(SeededRunner.SEED_PROPERTY, replay);
        }
    }

    @Test
    void runsEachSequenceWithConsecutiveSeedsFromTheFixedBase() {
        System.clearProperty(SeededRunner.SEED_PROPERTY);
        List<Long> seeds = new ArrayList<>();
        SeededRunner runner = SeededRunner.sequences(5).steps(7);
        runner.run((random, steps, seed) -> {
            assertEquals(7, steps);
            seeds.add(seed);
        });
        long base = SeededRunner.DEFAULT_BASE_SEED;
        assertEquals(List.of(base, base + 1, base + 2, base + 3, base + 4), seeds);
        assertEquals(5, runner.sequencesRun());
        assertEquals(35, runner.stepsRun());
    }

    @Test
    void theSameSeedGivesTheSameRandomChoices() {
        System.clearProperty(SeededRunner.SEED_PROPERTY);
        List<Integer> first = new ArrayList<>();
        List<Integer> second = new ArrayList<>();
        SeededRunner.sequences(3).seed(42).run((random, steps, seed) -> first.add(random.nextInt()));
        SeededRunner.sequences(3).seed(42).run((random, steps, seed) -> second.add(random.nextInt()));
        assertEquals(first, second);
        assertEquals(3, first.stream().distinct().count());
    }

    @Test
    void aFailureReportsTheSeedThatReplaysIt() {
        System.clearProperty(SeededRunner.SEED_PROPERTY);
        long failing = 1_000 + 3;
        IllegalStateException boom = new IllegalStateException("model and database disagree");
        SeededRunner runner = SeededRunner.sequences(10).seed(1_000).steps(20);
        AssertionError error = assertThrows(
                AssertionError.class,
                () -> runner.run((random, steps, seed) -> {
                    if (seed == failing) {
                        throw boom;
                    }
                }));
        assertTrue(
                error.getMessage().startsWith("sequence failed; replay with -Dbaton.seed=" + failing + " "),
                error.getMessage());
        assertTrue(error.getMessage().contains("model and database disagree"), error.getMessage());
        assertSame(boom, error.getCause());
        assertEquals(3, runner.sequencesRun());
        assertEquals(60, runner.stepsRun());
    }

    @Test
    void theSeedPropertyReplaysOnlyThatSequence() {
        System.setProperty(SeededRunner.SEED_PROPERTY, "1003");
        List<Long> seeds = new ArrayList<>();
        SeededRunner.sequences(10).seed(1_000).run((random, steps, seed) -> seeds.add(seed));
        assertEquals(List.of(1003L), seeds);

        // the replayed sequence sees the same random choices as in the full run
        System.clearProperty(SeededRunner.SEED_PROPERTY);
        List<Integer> full = new ArrayList<>();
        SeededRunner.sequences(10).seed(1_000).run((random, steps, seed) -> {
            if (seed == 1003) {
                full.add(random.nextInt(1_000_000));
            }
        });
        System.setProperty(SeededRunner.SEED_PROPERTY, "1003");
        List<Integer> replayed = new ArrayList<>();
        SeededRunner.sequences(10).seed(1_000).run((random, steps, seed) -> replayed.add(random.nextInt(1_000_000)));
        assertEquals(full, replayed);
    }

    @Test
    void aBadSeedPropertyIsRejected() {
        System.setProperty(SeededRunner.SEED_PROPERTY, "twelve");
        assertThrows(
                IllegalArgumentException.class, () -> SeededRunner.sequences(1).run((random, steps, seed) -> {}));
    }

    @Test
    void anAbortedAssumptionPassesThrough() {
        System.clearProperty(SeededRunner.SEED_PROPERTY);
        assertThrows(TestAbortedException.class, () -> SeededRunner.sequences(2)
                .run((random, steps, seed) -> Assumptions.abort("not here")));
    }

    @Test
    void countsMustBePositive() {
        assertThrows(IllegalArgumentException.class, () -> SeededRunner.sequences(0));
        assertThrows(
                IllegalArgumentException.class, () -> SeededRunner.sequences(1).steps(0));
    }

    @Test
    void randomSequencesFollowTheFixedOnesFromABaseDrawnPerRun() {
        System.clearProperty(SeededRunner.SEED_PROPERTY);
        List<Long> seeds = new ArrayList<>();
        SeededRunner runner = SeededRunner.sequences(2).seed(10).randomSequences(3);
        runner.run((random, steps, seed) -> seeds.add(seed));
        long r = runner.randomBaseSeed();
        assertEquals(List.of(10L, 11L, r, r + 1, r + 2), seeds);
        assertTrue(SeededRunner.sequences(1).randomBaseSeed() != r, "a new base per run");
        AssertionError error = assertThrows(
                AssertionError.class,
                () -> SeededRunner.sequences(1).randomSequences(1).run((random, steps, seed) -> {
                    if (seed != 20261129L) {
                        throw new AssertionError("boom");
                    }
                }));
        assertTrue(error.getMessage().contains("random base seed"), error.getMessage());
    }

    @Test
    void theRandomSequencesPropertyReplacesTheirCount() {
        System.clearProperty(SeededRunner.SEED_PROPERTY);
        System.setProperty(SeededRunner.RANDOM_SEQUENCES_PROPERTY, "4");
        try {
            SeededRunner runner = SeededRunner.sequences(2).randomSequences(1);
            runner.run((random, steps, seed) -> {});
            assertEquals(6, runner.sequencesRun());
        } finally {
            System.clearProperty(SeededRunner.RANDOM_SEQUENCES_PROPERTY);
        }
    }

    @Test
    void keptStepsAreReadOnlyWhenASeedIsReplayed() {
        System.setProperty(SeededRunner.KEEP_PROPERTY, "3, 17,20");
        try {
            System.clearProperty(SeededRunner.SEED_PROPERTY);
            assertEquals(List.of(), SeededRunner.keptSteps());
            System.setProperty(SeededRunner.SEED_PROPERTY, "5");
            assertEquals(List.of(3, 17, 20), SeededRunner.keptSteps());
        } finally {
            System.clearProperty(SeededRunner.KEEP_PROPERTY);
        }
    }
}
