package dev.baton.mysql;

import dev.baton.testkit.TestDatabase;
import dev.baton.testkit.TestDatabases;
import dev.baton.testkit.compat.AbstractClaimQueueCompatibilityTest;

class MySql8ClaimQueueCompatibilityTest extends AbstractClaimQueueCompatibilityTest {
    @Override
    protected TestDatabase database() {
        return TestDatabases.mysql();
    }
}
