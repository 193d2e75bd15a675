package dev.baton.postgres;

import dev.baton.testkit.TestDatabase;
import dev.baton.testkit.TestDatabases;
import dev.baton.testkit.compat.AbstractTransitionCompatibilityTest;

class PostgresEmbeddedTransitionCompatibilityTest extends AbstractTransitionCompatibilityTest {
    @Override
    protected TestDatabase database() {
        return TestDatabases.postgresEmbedded();
    }
}
