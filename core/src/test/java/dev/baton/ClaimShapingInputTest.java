package dev.baton;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrowsExactly;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;

/**
 * Issue 21: the options that shape a claim (per-key limit, fairness, priority) refuse bad input with a typed error
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
}
