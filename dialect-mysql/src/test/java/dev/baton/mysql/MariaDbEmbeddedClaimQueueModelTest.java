package dev.baton.mysql;

import dev.baton.testkit.TestDatabase;
import dev.baton.testkit.TestDatabases;
import dev.baton.testkit.compat.AbstractClaimQueueModelTest;

class MariaDbEmbeddedClaimQueueModelTest extends AbstractClaimQueueModelTest {
    @Override
    protected TestDatabase database() {
        return TestDatabases.mariadbEmbedded();
    }
}
