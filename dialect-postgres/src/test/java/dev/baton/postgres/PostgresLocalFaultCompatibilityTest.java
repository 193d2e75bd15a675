package dev.baton.postgres;

import dev.baton.testkit.TestDatabase;
import dev.baton.testkit.TestDatabases;
import dev.baton.testkit.compat.AbstractFaultCompatibilityTest;

class PostgresLocalFaultCompatibilityTest extends AbstractFaultCompatibilityTest {
    @Override
    protected TestDatabase database() {
        return TestDatabases.postgresLocal();
    }
}
