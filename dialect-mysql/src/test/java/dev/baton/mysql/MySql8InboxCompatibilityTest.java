package dev.baton.mysql;

import dev.baton.testkit.TestDatabase;
import dev.baton.testkit.TestDatabases;
import dev.baton.testkit.compat.AbstractInboxCompatibilityTest;

class MySql8InboxCompatibilityTest extends AbstractInboxCompatibilityTest {
    @Override
    protected TestDatabase database() {
        return TestDatabases.mysql();
    }
}
