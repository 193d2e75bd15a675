package dev.baton.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.function.Function;
import org.junit.jupiter.api.Test;

class ShrinkerTest {
    /** Fails when the sequence holds both an A and a B. */
    private static final Function<List<String>, Throwable> BOTH_A_AND_B =
            ops -> ops.contains("A") && ops.contains("B") ? new AssertionError("A and B") : null;

    @Test
    void aLongSequenceShrinksToExactlyTheTwoOperationsThatMatter() {
        Random random = new Random(7);
        List<String> ops = new ArrayList<>();
        for (int i = 0; i < 200; i++) {
            ops.add(String.valueOf("CDEFG".charAt(random.nextInt(5))));
        }
        ops.set(37, "A");
        ops.set(151, "B");
        Shrinker.Result<String> r = Shrinker.shrink(ops, BOTH_A_AND_B, Duration.ofSeconds(10));
        assertEquals(List.of("A", "B"), r.minimal());
        assertEquals(List.of(37, 151), r.kept());
        assertTrue(r.complete());
        assertEquals("A and B", r.failure().getMessage());
        assertTrue(r.runs() < 200, "runs " + r.runs());
    }

    @Test
    void theOrderOfOperationsIsKept() {
        List<String> ops = List.of("B", "x", "x", "A", "x");
        assertEquals(
                List.of("B", "A"),
                Shrinker.shrink(ops, BOTH_A_AND_B, Duration.ofSeconds(10)).minimal());
    }

    @Test
    void aSingleNeededOperationShrinksToItself() {
        List<String> ops = List.of("x", "y", "A", "z");
        Shrinker.Result<String> r =
                Shrinker.shrink(ops, s -> s.contains("A") ? new AssertionError() : null, Duration.ofSeconds(10));
        assertEquals(List.of("A"), r.minimal());
        assertEquals(List.of(2), r.kept());
    }

    @Test
    void aSpentBudgetReturnsTheBestSoFar() {
        List<String> ops = new ArrayList<>(List.of("A", "B"));
        for (int i = 0; i < 50; i++) {
            ops.add("x");
        }
        Shrinker.Result<String> r = Shrinker.shrink(ops, BOTH_A_AND_B, Duration.ZERO);
        assertFalse(r.complete());
        assertEquals(ops, r.minimal());
    }

    @Test
    void aPassingSequenceIsRefused() {
        assertThrows(
                IllegalArgumentException.class,
                () -> Shrinker.shrink(List.of("A"), BOTH_A_AND_B, Duration.ofSeconds(1)));
    }
}
