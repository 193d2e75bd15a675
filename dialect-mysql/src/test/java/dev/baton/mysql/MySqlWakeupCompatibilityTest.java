package dev.baton.mysql;

import dev.baton.testkit.compat.AbstractWakeupCompatibilityTest;
import dev.baton.testservers.TestServer;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The wake-up suite on the local MariaDB only, through both drivers (skipped with the reason when it does not answer, unless
 * {@code CI=true}): MariaDB has no notifications, so only wake-ups in one JVM are tested; they wait on wall-clock
 * bounds, which the embedded server adds nothing to.
 */
@ParameterizedClass(name = "{0}")
@EnumSource(
        value = TestServer.class,
        names = {"MARIADB_LOCAL", "MARIADB_LOCAL_CONNECTORJ"})
class MySqlWakeupCompatibilityTest {
    /** The server of this run; the nested suites find it here (see {@code BatonDatabaseExtension}). */
    @Parameter
    TestServer server;

    @Nested
    class Wakeups extends AbstractWakeupCompatibilityTest {}
}
