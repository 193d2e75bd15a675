package dev.baton.postgres;

import dev.baton.testkit.compat.AbstractNotifyWakeupTest;
import dev.baton.testkit.compat.AbstractWakeupCompatibilityTest;
import dev.baton.testservers.TestServer;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The wake-up suites on the local PostgreSQL only (skipped with the reason when it does not answer, unless
 * {@code CI=true}): they wait on wall-clock bounds and start a worker JVM, which the embedded server adds nothing to.
 */
@ParameterizedClass(name = "{0}")
@EnumSource(
        value = TestServer.class,
        names = {"POSTGRES_LOCAL"})
class PostgresWakeupCompatibilityTest {
    /** The server of this run; the nested suites find it here (see {@code BatonDatabaseExtension}). */
    @Parameter
    TestServer server;

    @Nested
    class Wakeups extends AbstractWakeupCompatibilityTest {}

    @Nested
    class NotifyWakeups extends AbstractNotifyWakeupTest {}
}
