package dev.baton.sqlserver;

import dev.baton.testkit.TestDatabase;
import dev.baton.testkit.TestDatabases;
import dev.baton.testkit.compat.AbstractTransitionCompatibilityTest;

class SqlServerTransitionCompatibilityTest extends AbstractTransitionCompatibilityTest {
    @Override
    protected TestDatabase database() {
        return TestDatabases.sqlServer();
    }
}
