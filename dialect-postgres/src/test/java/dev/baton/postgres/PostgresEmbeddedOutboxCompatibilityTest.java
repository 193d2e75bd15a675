package dev.baton.postgres;

import dev.baton.testkit.TestDatabase;
import dev.baton.testkit.TestDatabases;
import dev.baton.testkit.compat.AbstractOutboxCompatibilityTest;

class PostgresEmbeddedOutboxCompatibilityTest extends AbstractOutboxCompatibilityTest {
    @Override
    protected TestDatabase database() {
        return TestDatabases.postgresEmbedded();
    }
}
