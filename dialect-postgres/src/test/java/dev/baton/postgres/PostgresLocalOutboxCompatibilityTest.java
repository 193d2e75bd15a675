package dev.baton.postgres;

import dev.baton.testkit.TestDatabase;
import dev.baton.testkit.TestDatabases;
import dev.baton.testkit.compat.AbstractOutboxCompatibilityTest;

class PostgresLocalOutboxCompatibilityTest extends AbstractOutboxCompatibilityTest {
    @Override
    protected TestDatabase database() {
        return TestDatabases.postgresLocal();
    }
}
