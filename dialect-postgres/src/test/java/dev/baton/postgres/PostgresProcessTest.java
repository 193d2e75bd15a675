package dev.baton.postgres;

import dev.baton.testkit.compat.AbstractClaimProcessTest;
import dev.baton.testkit.compat.AbstractSendPauseProcessTest;
import dev.baton.testservers.TestServer;
import org.junit.jupiter.api.ClassOrderer;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.TestClassOrder;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The process suites of the test kit (worker JVMs killed, stopped and continued with signals, sessions killed) on the
 * local PostgreSQL only: what they prove is the protocol between processes, not the server version, which the
 * compatibility suites cover on both ({@link PostgresCompatibilityTest}); one server halves their minute and a half.
 */
@ParameterizedClass(name = "{0}")
@TestClassOrder(ClassOrderer.OrderAnnotation.class)
@EnumSource(
        value = TestServer.class,
        names = {"POSTGRES_LOCAL"})
class PostgresProcessTest {
    /** The server of this run; the nested suites find it here (see {@code BatonDatabaseExtension}). */
    @Parameter
    TestServer server;

    @Nested
    @Order(1) // worker JVMs stopped and continued with signals
    class SendPauseProcess extends AbstractSendPauseProcessTest {}

    @Nested
    @Order(2) // last: it kills sessions and leaves the server busy for a while
    class ClaimProcess extends AbstractClaimProcessTest {}
}
