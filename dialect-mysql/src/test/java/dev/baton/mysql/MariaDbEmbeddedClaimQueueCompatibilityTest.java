package dev.baton.mysql;

import dev.baton.testkit.TestDatabase;
import dev.baton.testkit.TestDatabases;
import dev.baton.testkit.compat.AbstractClaimQueueCompatibilityTest;

class MariaDbEmbeddedClaimQueueCompatibilityTest extends AbstractClaimQueueCompatibilityTest {
    @Override
    protected TestDatabase database() {
        return TestDatabases.mariadbEmbedded();
    }
}
