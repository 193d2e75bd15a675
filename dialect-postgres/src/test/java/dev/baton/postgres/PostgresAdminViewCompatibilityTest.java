package dev.baton.postgres;

import dev.baton.testkit.compat.AbstractAdminViewCompatibilityTest;
import dev.baton.testservers.TestDatabase;
import dev.baton.testservers.TestServer;
import java.util.function.Supplier;

/** The admin views' suite on the local PostgreSQL only (the views' SQL is the dialect's; CI time is scarce). */
class PostgresAdminViewCompatibilityTest extends AbstractAdminViewCompatibilityTest {
    @Override
    protected Supplier<TestDatabase> server() {
        return TestServer.POSTGRES_LOCAL;
    }
}
