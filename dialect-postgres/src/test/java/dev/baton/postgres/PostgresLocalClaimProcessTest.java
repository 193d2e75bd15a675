package dev.baton.postgres;

import dev.baton.testkit.TestDatabase;
import dev.baton.testkit.TestDatabases;
import dev.baton.testkit.compat.AbstractClaimProcessTest;

class PostgresLocalClaimProcessTest extends AbstractClaimProcessTest {
    @Override
    protected TestDatabase database() {
        return TestDatabases.postgresLocal();
    }
}
