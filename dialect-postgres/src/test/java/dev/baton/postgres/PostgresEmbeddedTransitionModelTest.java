package dev.baton.postgres;

import dev.baton.testkit.TestDatabase;
import dev.baton.testkit.TestDatabases;
import dev.baton.testkit.compat.AbstractTransitionModelTest;

class PostgresEmbeddedTransitionModelTest extends AbstractTransitionModelTest {
    @Override
    protected TestDatabase database() {
        return TestDatabases.postgresEmbedded();
    }
}
