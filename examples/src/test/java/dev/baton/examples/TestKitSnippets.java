package dev.baton.examples;

import dev.baton.testkit.TestDatabase;
import dev.baton.testkit.TestDatabases;
import dev.baton.testkit.compat.AbstractClaimQueueCompatibilityTest;
import dev.baton.testkit.compat.AbstractTransitionCompatibilityTest;

/**
 * Snippets of docs/src/test-kit.md that are classes of their own. Surefire does not run nested classes, so these
 * compile here without running the suites again (the dialect modules run them).
 */
final class TestKitSnippets {
    private TestKitSnippets() {}

    // tag::compat-suite[]
    /** Baton's transition suite against your PostgreSQL (BATON_TEST_POSTGRES_URL, _USER, _PASSWORD). */
    static class YourPostgresTransitionTest extends AbstractTransitionCompatibilityTest {
        @Override
        protected TestDatabase database() {
            return TestDatabases.postgresLocal();
        }
    }

    /** And the claim queue suite against your MariaDB (BATON_TEST_MYSQL_URL, _USER, _PASSWORD). */
    static class YourMariaDbClaimQueueTest extends AbstractClaimQueueCompatibilityTest {
        @Override
        protected TestDatabase database() {
            return TestDatabases.mariadbLocal();
        }
    }
    // end::compat-suite[]
}
