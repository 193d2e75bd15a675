package dev.baton.sqlserver;

import dev.baton.testkit.TestDatabase;
import dev.baton.testkit.TestDatabases;
import dev.baton.testkit.compat.AbstractInboxCompatibilityTest;

class SqlServerInboxCompatibilityTest extends AbstractInboxCompatibilityTest {
    @Override
    protected TestDatabase database() {
        return TestDatabases.sqlServer();
    }
}
