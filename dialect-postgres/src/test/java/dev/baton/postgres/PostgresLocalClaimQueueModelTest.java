package dev.baton.postgres;

import dev.baton.testkit.TestDatabase;
import dev.baton.testkit.TestDatabases;
import dev.baton.testkit.compat.AbstractClaimQueueModelTest;

class PostgresLocalClaimQueueModelTest extends AbstractClaimQueueModelTest {
    @Override
    protected TestDatabase database() {
        return TestDatabases.postgresLocal();
    }
}
