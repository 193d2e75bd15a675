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
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.platform.testkit.engine.EngineTestKit;
import org.junit.platform.testkit.engine.Events;

/**
 * A server that is missing ends every test of a suite as skipped (aborted) with the reason, one by one,
 * never as "0 tests run" (a test factory too); where it must be there, every test fails with the reason. The
 * server is asked once. A suite marked {@link RunsOn} is skipped as a whole, with the reason, on a server of an
 * enclosing parameterized class that it does not name, and never asks for that server.
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
    void aSuiteIsSkippedAsAWholeOnAServerItsRunsOnDoesNotName() {
        Events all = EngineTestKit.engine("junit-jupiter")
                .selectors(selectClass(OnTwoServers.class))
                .execute()
                .allEvents();
        assertEquals(
                List.of("Restricted runs on [postgres-local] only, not on mariadb-galera: a test of RunsOn"),
                all.skipped().stream()
                        .map(e -> e.getPayload(String.class).orElseThrow())
                        .toList(),
                "one skipped container on the server it does not name");
        assertEquals(
                3,
                all.started().stream()
                        .filter(e -> e.getTestDescriptor().isTest())
                        .count(),
                "its three tests start on the server it names, and on that one only");
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

    /** A suite restricted to the first of the two servers it is given; the second would take minutes to start. */
    @ParameterizedClass(name = "{0}")
    @EnumSource(
            value = TestServer.class,
            names = {"POSTGRES_LOCAL", "MARIADB_GALERA"})
    static class OnTwoServers {
        @Parameter
        TestServer server;

        @Nested
        @RunsOn(value = TestServer.POSTGRES_LOCAL, because = "a test of RunsOn")
        class Restricted extends ThreeTests {}
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
