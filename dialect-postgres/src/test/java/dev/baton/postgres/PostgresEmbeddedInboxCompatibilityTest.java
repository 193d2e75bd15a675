package dev.baton.postgres;

import dev.baton.testkit.TestDatabase;
import dev.baton.testkit.TestDatabases;
import dev.baton.testkit.compat.AbstractInboxCompatibilityTest;

class PostgresEmbeddedInboxCompatibilityTest extends AbstractInboxCompatibilityTest {
    @Override
    protected TestDatabase database() {
        return TestDatabases.postgresEmbedded();
    }
}
