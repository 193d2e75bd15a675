package dev.baton.mysql;

import dev.baton.testkit.TestDatabase;
import dev.baton.testkit.TestDatabases;
import dev.baton.testkit.compat.AbstractIdempotencyKeyCompatibilityTest;

class MySql8IdempotencyKeyCompatibilityTest extends AbstractIdempotencyKeyCompatibilityTest {
    @Override
    protected TestDatabase database() {
        return TestDatabases.mysql();
    }
}
