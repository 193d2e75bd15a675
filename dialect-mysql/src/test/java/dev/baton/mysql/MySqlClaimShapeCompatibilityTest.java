package dev.baton.mysql;

import dev.baton.testkit.compat.AbstractClaimShapeCompatibilityTest;
import dev.baton.testkit.compat.AbstractRateLimitCompatibilityTest;
import dev.baton.testservers.TestServer;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The shaped-claim suite on the local MariaDB through both drivers
 * (MariaDB Connector/J and MySQL Connector/J): the claim's statements, the named lock held past the commit and the
 * driver's results; the embedded server would add a version, not a path.
 */
@ParameterizedClass(name = "{0}")
@EnumSource(
        value = TestServer.class,
        names = {"MARIADB_LOCAL", "MARIADB_LOCAL_CONNECTORJ"})
class MySqlClaimShapeCompatibilityTest {
    /** The server of this run; the nested suite finds it here (see {@code BatonDatabaseExtension}). */
    @Parameter
    TestServer server;

    @Nested
    class ClaimShapes extends AbstractClaimShapeCompatibilityTest {}

    @Nested
    class RateLimits extends AbstractRateLimitCompatibilityTest {}
}
