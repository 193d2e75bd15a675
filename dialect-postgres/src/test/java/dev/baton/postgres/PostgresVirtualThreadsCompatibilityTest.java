package dev.baton.postgres;

import dev.baton.testkit.compat.AbstractVirtualThreadsCompatibilityTest;
import dev.baton.testservers.TestServer;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The virtual-thread worker suite on the local PostgreSQL (skipped with the reason when it does not answer, unless
 * {@code CI=true}, and below JDK 21): it tests the JVM's threads against a real driver, which the embedded server adds
 * nothing to. Run on JDK 25 by {@code .ci/jdk25}.
 */
@ParameterizedClass(name = "{0}")
@EnumSource(
        value = TestServer.class,
        names = {"POSTGRES_LOCAL"})
class PostgresVirtualThreadsCompatibilityTest {
    /** The server of this run; the nested suite finds it here (see {@code BatonDatabaseExtension}). */
    @Parameter
    TestServer server;

    @Nested
    class VirtualThreads extends AbstractVirtualThreadsCompatibilityTest {}
}
