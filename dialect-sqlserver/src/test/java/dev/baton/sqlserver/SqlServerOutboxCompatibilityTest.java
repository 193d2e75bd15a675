package dev.baton.sqlserver;

import dev.baton.testkit.TestDatabase;
import dev.baton.testkit.TestDatabases;
import dev.baton.testkit.compat.AbstractOutboxCompatibilityTest;

class SqlServerOutboxCompatibilityTest extends AbstractOutboxCompatibilityTest {
    @Override
    protected TestDatabase database() {
        return TestDatabases.sqlServer();
    }
}
