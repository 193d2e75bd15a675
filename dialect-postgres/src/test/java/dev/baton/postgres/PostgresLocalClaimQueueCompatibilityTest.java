package dev.baton.postgres;

import dev.baton.testkit.TestDatabase;
import dev.baton.testkit.TestDatabases;
import dev.baton.testkit.compat.AbstractClaimQueueCompatibilityTest;

class PostgresLocalClaimQueueCompatibilityTest extends AbstractClaimQueueCompatibilityTest {
    @Override
    protected TestDatabase database() {
        return TestDatabases.postgresLocal();
    }
}
