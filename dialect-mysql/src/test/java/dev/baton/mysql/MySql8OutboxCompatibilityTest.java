package dev.baton.mysql;

import dev.baton.testkit.TestDatabase;
import dev.baton.testkit.TestDatabases;
import dev.baton.testkit.compat.AbstractOutboxCompatibilityTest;

class MySql8OutboxCompatibilityTest extends AbstractOutboxCompatibilityTest {
    @Override
    protected TestDatabase database() {
        return TestDatabases.mysql();
    }
}
