package dev.baton.examples;

import dev.baton.testkit.compat.AbstractClaimQueueCompatibilityTest;
import dev.baton.testkit.compat.AbstractTransitionCompatibilityTest;
import dev.baton.testservers.TestServer;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Snippets of docs/src/test-kit.md that are classes of their own. Surefire does not run nested classes, so these
 * compile here without running the suites again (the dialect modules run them).
 */
final class TestKitSnippets {
    private TestKitSnippets() {}

    // tag::compat-suite[]
    /** Baton's suites against your PostgreSQL (BATON_TEST_POSTGRES_URL...) and MariaDB (BATON_TEST_MYSQL_URL...). */
    @ParameterizedClass(name = "{0}")
    @EnumSource(
            value = TestServer.class,
            names = {"POSTGRES_LOCAL", "MARIADB_LOCAL"})
    static class YourServersCompatibilityTest {
        @Parameter
        TestServer server; // the suites below run on it

        @Nested
        class Transitions extends AbstractTransitionCompatibilityTest {}

        @Nested
        class ClaimQueue extends AbstractClaimQueueCompatibilityTest {}
    }
    // end::compat-suite[]
}
