package dev.baton.mysql;

import dev.baton.testkit.TestDatabase;
import dev.baton.testkit.TestDatabases;
import dev.baton.testkit.compat.AbstractClaimProcessTest;

class MariaDbLocalClaimProcessTest extends AbstractClaimProcessTest {
    @Override
    protected TestDatabase database() {
        return TestDatabases.mariadbLocal();
    }
}
