package dev.baton.sqlserver;

import dev.baton.testkit.TestDatabase;
import dev.baton.testkit.TestDatabases;
import dev.baton.testkit.compat.AbstractIdempotencyKeyCompatibilityTest;

class SqlServerIdempotencyKeyCompatibilityTest extends AbstractIdempotencyKeyCompatibilityTest {
    @Override
    protected TestDatabase database() {
        return TestDatabases.sqlServer();
    }
}
