package dev.baton.mysql;

import dev.baton.testkit.compat.AbstractVirtualThreadsCompatibilityTest;
import dev.baton.testservers.TestServer;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The virtual-thread worker suite on the local MariaDB, through both drivers (skipped with the reason when it does not
 * answer, unless {@code CI=true}, and below JDK 21). Run on JDK 25 by {@code .ci/jdk25}.
 */
@ParameterizedClass(name = "{0}")
@EnumSource(
        value = TestServer.class,
        names = {"MARIADB_LOCAL", "MARIADB_LOCAL_CONNECTORJ"})
class MariaDbVirtualThreadsCompatibilityTest {
    /** The server of this run; the nested suite finds it here (see {@code BatonDatabaseExtension}). */
    @Parameter
    TestServer server;

    @Nested
    class VirtualThreads extends AbstractVirtualThreadsCompatibilityTest {}
}
