package dev.baton.mysql;

import dev.baton.testkit.TestDatabase;
import dev.baton.testkit.TestDatabases;
import dev.baton.testkit.compat.AbstractFaultCompatibilityTest;

class MariaDbLocalFaultCompatibilityTest extends AbstractFaultCompatibilityTest {
    @Override
    protected TestDatabase database() {
        return TestDatabases.mariadbLocal();
    }
}
