package dev.baton.mysql;

import dev.baton.testkit.TestDatabase;
import dev.baton.testkit.TestDatabases;
import dev.baton.testkit.compat.AbstractInboxCompatibilityTest;

class MariaDbLocalInboxCompatibilityTest extends AbstractInboxCompatibilityTest {
    @Override
    protected TestDatabase database() {
        return TestDatabases.mariadbLocal();
    }
}
