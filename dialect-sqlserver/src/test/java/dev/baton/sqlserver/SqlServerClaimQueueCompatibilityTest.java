package dev.baton.sqlserver;

import dev.baton.testkit.TestDatabase;
import dev.baton.testkit.TestDatabases;
import dev.baton.testkit.compat.AbstractClaimQueueCompatibilityTest;

class SqlServerClaimQueueCompatibilityTest extends AbstractClaimQueueCompatibilityTest {
    @Override
    protected TestDatabase database() {
        return TestDatabases.sqlServer();
    }
}
