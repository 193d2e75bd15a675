package dev.baton;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrowsExactly;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;

/**
 * The options that shape a claim (per-key limit, fairness, priority) refuse bad input with a typed error
 * before any SQL; the data source counts connection requests.
 */
class ClaimShapingInputTest {
    private final CountingDataSource dataSource = new CountingDataSource();
    private final Baton baton = Baton.builder(dataSource.dataSource())
            .dialect(AssignmentsRefusalTest.stubDialect())
            .build();

    private ClaimQueueBuilder<BadInputTest.Job> queue() {
        return baton.<BadInputTest.Job>queue("jobs")
                .table("jobs")
                .claim("status", BadInputTest.MACHINE, BadInputTest.Job.PENDING, BadInputTest.Job.PROCESSING)
                .deadState(BadInputTest.Job.DEAD)
                .lease(Duration.ofMinutes(1));
    }

    private void refused(Class<? extends Throwable> expected, String contains, Executable call) {
        Throwable t = assertThrowsExactly(expected, call);
        assertTrue(t.getMessage().contains(contains), t.getMessage());
        assertEquals(0, dataSource.connections(), "no connection was requested: nothing reached SQL");
    }

    @Test
    void aPerKeyLimitOutOfRange() {
        refused(ConfigurationException.class, "1..1000, was 0", () -> queue().concurrencyPerKey("acct", 0));
        refused(ConfigurationException.class, "was 1001", () -> queue().concurrencyPerKey("acct", 1001));
    }

    @Test
    void columnsThatAreNotPlainIdentifiers() {
        refused(InvalidIdentifierException.class, "a;b", () -> queue().concurrencyPerKey("a;b", 2));
        refused(InvalidIdentifierException.class, "t\"x", () -> queue().fairAcross("t\"x"));
        refused(InvalidIdentifierException.class, "1p", () -> queue().priority("1p"));
    }

    @Test
    void aColumnBatonWritesCannotBeAKeyGroupOrPriority() {
        refused(ConfigurationException.class, "attempts", () -> queue().priority("attempts")
                .build());
        refused(ConfigurationException.class, "STATUS", () -> queue().fairAcross("STATUS")
                .build());
    }

    @Test
    void orderedPerKeyAndAPerKeyLimitExcludeEachOther() {
        refused(ConfigurationException.class, "choose one", () -> queue().orderedPerKey("acct")
                .concurrencyPerKey("acct", 2)
                .build());
    }

    @Test
    void thePriorityIsNotAlsoAnOrderColumn() {
        refused(ConfigurationException.class, "priority", () -> queue().priority("prio")
                .orderBy("prio", "id")
                .build());
    }

    @Test
    void aDatabaseWithoutAnExclusiveLockCannotLimitKeys() {
        refused(UnsupportedDatabaseException.class, "exclusive lock", () -> queue().concurrencyPerKey("acct", 2)
                .build());
    }

    @Test
    void fairnessAndPriorityBuildWithoutALock() {
        queue().fairAcross("tenant").priority("prio").build();
        assertEquals(0, dataSource.connections());
    }

    @Test
    void aGroupWeightBelowOneOrAboveTheLargestBatch() {
        refused(
                ConfigurationException.class,
                "weight of group 'gold' must be 1..1000, was 0",
                () -> GroupWeights.of(Map.of("gold", 0)));
        refused(ConfigurationException.class, "was -3", () -> GroupWeights.of(Map.of("gold", -3)));
        refused(ConfigurationException.class, "was 1001", () -> GroupWeights.of(Map.of(7L, 1001)));
        Map<String, Integer> noWeight = new HashMap<>();
        noWeight.put("gold", null);
        refused(ConfigurationException.class, "was null", () -> GroupWeights.of(noWeight));
    }

    @Test
    void aNullGroupCannotHaveAWeight() {
        Map<String, Integer> weights = new HashMap<>();
        weights.put(null, 2);
        refused(ConfigurationException.class, "the NULL group always has weight 1", () -> GroupWeights.of(weights));
    }

    @Test
    void aGroupMustBeAValueJdbcBinds() {
        refused(ConfigurationException.class, "java.lang.Object", () -> GroupWeights.of(Map.of(new Object(), 2)));
        refused(ConfigurationException.class, "java.time.Duration", () -> GroupWeights.of(Map.of(Duration.ZERO, 2)));
    }

    @Test
    void atMostAHundredGroupsHaveAWeight() {
        Map<String, Integer> weights = new LinkedHashMap<>();
        for (int i = 0; i < GroupWeights.MAX_GROUPS; i++) {
            weights.put("t" + i, 2);
        }
        assertEquals(2, GroupWeights.of(weights).weightOf("t99"));
        weights.put("t100", 2);
        refused(
                ConfigurationException.class,
                "at most 100 groups may have a weight, was 101",
                () -> GroupWeights.of(weights));
    }

    @Test
    void weightsAreACopyAndDefaultToOne() {
        Map<Object, Integer> given = new LinkedHashMap<>();
        given.put("gold", 3);
        given.put(42L, 2);
        GroupWeights w = GroupWeights.of(given);
        given.put("gold", 9);
        assertEquals(3, w.weightOf("gold"));
        assertEquals(2, w.weightOf(42L));
        assertEquals(1, w.weightOf("other"));
        assertEquals(List.of("gold", 42L), List.copyOf(w.asMap().keySet()), "the order given");
        assertThrowsExactly(UnsupportedOperationException.class, () -> w.asMap().put("x", 2));
        assertEquals(GroupWeights.none(), GroupWeights.of(Map.of()));
        assertEquals(w, GroupWeights.of(Map.of("gold", 3, 42L, 2)));
    }

    @Test
    void fairAcrossNeedsWeightsAndAPlainColumn() {
        refused(NullPointerException.class, "weights", () -> queue().fairAcross("tenant", null));
        refused(InvalidIdentifierException.class, "t x", () -> queue().fairAcross("t x", GroupWeights.none()));
        queue().fairAcross("tenant", GroupWeights.of(Map.of("gold", 3)))
                .priority("prio")
                .build();
        assertEquals(0, dataSource.connections());
    }
}
