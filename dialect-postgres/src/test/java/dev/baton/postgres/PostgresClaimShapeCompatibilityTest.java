package dev.baton.postgres;

import dev.baton.testkit.compat.AbstractClaimShapeCompatibilityTest;
import dev.baton.testkit.compat.AbstractRateLimitCompatibilityTest;
import dev.baton.testservers.TestServer;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The shaped-claim suite on the local PostgreSQL only: what it proves
 * is the claim's SQL and its lock under concurrent claimers, which the server version does not change; one server
 * keeps its seconds out of the embedded run ({@link PostgresCompatibilityTest} covers both versions).
 */
@ParameterizedClass(name = "{0}")
@EnumSource(
        value = TestServer.class,
        names = {"POSTGRES_LOCAL"})
class PostgresClaimShapeCompatibilityTest {
    /** The server of this run; the nested suite finds it here (see {@code BatonDatabaseExtension}). */
    @Parameter
    TestServer server;

    @Nested
    class ClaimShapes extends AbstractClaimShapeCompatibilityTest {}

    @Nested
    class RateLimits extends AbstractRateLimitCompatibilityTest {}
}
