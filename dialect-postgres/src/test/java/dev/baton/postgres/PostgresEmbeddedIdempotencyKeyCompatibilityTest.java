package dev.baton.postgres;

import dev.baton.testkit.TestDatabase;
import dev.baton.testkit.TestDatabases;
import dev.baton.testkit.compat.AbstractIdempotencyKeyCompatibilityTest;

class PostgresEmbeddedIdempotencyKeyCompatibilityTest extends AbstractIdempotencyKeyCompatibilityTest {
    @Override
    protected TestDatabase database() {
        return TestDatabases.postgresEmbedded();
    }
}
