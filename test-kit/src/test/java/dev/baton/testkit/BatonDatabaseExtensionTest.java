package dev.baton.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.platform.engine.discovery.DiscoverySelectors.selectClass;

import dev.baton.testservers.TestDatabase;
import dev.baton.testservers.TestServer;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;
import org.junit.platform.testkit.engine.EngineTestKit;
import org.junit.platform.testkit.engine.Events;

/**
 * A server that is missing ends every test of a suite as skipped (aborted) with the reason, one by one,
 * never as "0 tests run" (a test factory too); where it must be there, every test fails with the reason. The
 * server is asked once. A suite {@link OnEachServer} runs on the servers of its test that its {@link RunsOn} names,
 * and has no run (no skip either) on the others.
 */
class BatonDatabaseExtensionTest {
    static final AtomicInteger ASKED = new AtomicInteger();
    static final AtomicInteger SET_UP = new AtomicInteger();

    @Test
    void aMissingServerSkipsEachTestWithTheReason() {
        ASKED.set(0);
        SET_UP.set(0);
        Events tests = run(Missing.class);
        tests.assertStatistics(stats -> stats.started(3).aborted(3).succeeded(0).failed(0));
        assertEquals(
                List.of("no such server: BATON_TEST_NOTHING_URL is not set"),
                tests.aborted().stream()
                        .map(e -> e.getPayload(org.junit.platform.engine.TestExecutionResult.class)
                                .orElseThrow()
                                .getThrowable()
                                .orElseThrow()
                                .getMessage())
                        .distinct()
                        .toList());
        assertEquals(1, ASKED.get(), "the server is asked once per suite");
        assertEquals(0, SET_UP.get(), "no set-up without a server");
    }

    @Test
    void aServerThatMustBeThereFailsEachTestWithTheReason() {
        Events tests = run(Required.class);
        tests.assertStatistics(stats -> stats.started(3).failed(3).aborted(0));
    }

    @Test
    void aMissingServerSkipsATestFactoryAsOneTestWithTheReason() {
        Events tests = run(MissingFactory.class);
        tests.assertStatistics(stats -> stats.started(1).aborted(1).succeeded(0).failed(0));
        assertEquals(
                "no such server: BATON_TEST_NOTHING_URL is not set",
                tests.aborted().stream()
                        .findFirst()
                        .orElseThrow()
                        .getPayload(org.junit.platform.engine.TestExecutionResult.class)
                        .orElseThrow()
                        .getThrowable()
                        .orElseThrow()
                        .getMessage());
    }

    @Test
    void aSuiteRunsOnTheServersOfItsTestThatItsRunsOnNamesAndHasNoRunOnTheOthers() {
        Events all = EngineTestKit.engine("junit-jupiter")
                .selectors(selectClass(OnTwoServers.class))
                .execute()
                .allEvents();
        assertEquals(0, all.skipped().count(), "no skip: a suite has no run on a server it does not name");
        assertEquals(
                List.of("postgres-local"),
                all.started().stream()
                        .map(e -> e.getTestDescriptor())
                        .filter(d -> d.getUniqueId().getLastSegment().getType().equals("class-template-invocation")
                                && d.getUniqueId().toString().contains("nested-class-template"))
                        .map(d -> d.getDisplayName())
                        .toList(),
                "one run of the restricted suite, none of the one that names neither server");
        assertEquals(
                3,
                all.started().stream()
                        .filter(e -> e.getTestDescriptor().isTest())
                        .count(),
                "its three tests");
    }

    private static Events run(Class<?> suite) {
        return EngineTestKit.engine("junit-jupiter")
                .selectors(selectClass(suite))
                .execute()
                .testEvents();
    }

    /** A suite of three tests on a server that is not there; its absence is expected. */
    static class Missing extends ThreeTests {
        @Override
        protected Supplier<TestDatabase> server() {
            return () -> {
                ASKED.incrementAndGet();
                return Assumptions.abort("no such server: BATON_TEST_NOTHING_URL is not set");
            };
        }
    }

    /** A suite of three tests on a server that is not there but must be (as with {@code CI=true}). */
    static class Required extends ThreeTests {
        @Override
        protected Supplier<TestDatabase> server() {
            return () -> {
                throw new AssertionError("the server must be there: CI=true");
            };
        }
    }

    /** A suite whose cases a factory generates against the database, on a server that is not there. */
    static class MissingFactory extends DatabaseSuite {
        @Override
        protected Supplier<TestDatabase> server() {
            return () -> Assumptions.abort("no such server: BATON_TEST_NOTHING_URL is not set");
        }

        @TestFactory
        List<DynamicTest> cases() {
            Optional<DynamicTest> skipped = skippedFactory("cases");
            if (skipped.isPresent()) {
                return List.of(skipped.get());
            }
            String url = database().jdbcUrl();
            return List.of(DynamicTest.dynamicTest("one", () -> {}), DynamicTest.dynamicTest(url, () -> {}));
        }
    }

    /** Two suites on two servers: one runs on the first only, the other on neither (the second takes minutes). */
    @CompatibilityServers({TestServer.POSTGRES_LOCAL, TestServer.MARIADB_GALERA})
    static class OnTwoServers {
        @Nested
        @OnEachServer
        @RunsOn(value = TestServer.POSTGRES_LOCAL, because = "a test of RunsOn")
        class Restricted extends ThreeTests {}

        @Nested
        @OnEachServer
        @RunsOn(value = TestServer.SQLSERVER, because = "a test of RunsOn")
        class Elsewhere extends ThreeTests {}
    }

    abstract static class ThreeTests extends DatabaseSuite {
        @Override
        protected void setUp() {
            SET_UP.incrementAndGet();
        }

        @Test
        void one() {}

        @Test
        void two() {}

        @Test
        void three() {}
    }
}
