package dev.baton.postgres;

import dev.baton.testkit.compat.AbstractHousekeepingCompatibilityTest;
import dev.baton.testservers.TestDatabase;
import dev.baton.testservers.TestServer;
import java.util.function.Supplier;

/**
 * The housekeeping suite (the expiry sweep beside a host's row lock, the receipt cleanup's cost to a caller, the health
 * of a queue ordered per key) on the local PostgreSQL only: it proves the statements' locking and counting, which the
 * server version does not change.
 */
class PostgresHousekeepingCompatibilityTest extends AbstractHousekeepingCompatibilityTest {
    @Override
    protected Supplier<TestDatabase> server() {
        return TestServer.POSTGRES_LOCAL;
    }
}
