package dev.baton.postgres;

import dev.baton.testkit.TestDatabase;
import dev.baton.testkit.TestDatabases;
import dev.baton.testkit.compat.AbstractTransitionCompatibilityTest;

class PostgresLocalTransitionCompatibilityTest extends AbstractTransitionCompatibilityTest {
    @Override
    protected TestDatabase database() {
        return TestDatabases.postgresLocal();
    }
}
