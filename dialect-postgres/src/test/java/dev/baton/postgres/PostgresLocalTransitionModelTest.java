package dev.baton.postgres;

import dev.baton.testkit.TestDatabase;
import dev.baton.testkit.TestDatabases;
import dev.baton.testkit.compat.AbstractTransitionModelTest;

class PostgresLocalTransitionModelTest extends AbstractTransitionModelTest {
    @Override
    protected TestDatabase database() {
        return TestDatabases.postgresLocal();
    }
}
