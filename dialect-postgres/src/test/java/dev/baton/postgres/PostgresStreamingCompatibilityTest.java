package dev.baton.postgres;

import dev.baton.testkit.compat.AbstractClaimQueueCompatibilityTest;
import dev.baton.testkit.compat.AbstractOutboxCompatibilityTest;
import dev.baton.testkit.compat.AbstractTransitionCompatibilityTest;
import dev.baton.testservers.TestServer;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Suites of the test kit on the writer of a PostgreSQL primary with a synchronous streaming standby, reached through
 * a multi-host URL ({@code targetServerType=primary}); nothing fails over here (see {@link PostgresFailoverTest}, which
 * runs both replication modes). Synchronous only: with an asynchronous standby the writer answers exactly as a single
 * server does (its commits wait for nobody), which {@link PostgresCompatibilityTest} covers; the synchronous one makes
 * every commit wait for the standby's flush. Skipped only when the machine has no PostgreSQL server binaries.
 */
@ParameterizedClass(name = "{0}")
@EnumSource(
        value = TestServer.class,
        names = {"POSTGRES_STREAMING_SYNC"})
class PostgresStreamingCompatibilityTest {
    /** The server of this run; the nested suites find it here (see {@code BatonDatabaseExtension}). */
    @Parameter
    TestServer server;

    @Nested
    class Transitions extends AbstractTransitionCompatibilityTest {}

    @Nested
    class ClaimQueue extends AbstractClaimQueueCompatibilityTest {}

    @Nested
    class Outbox extends AbstractOutboxCompatibilityTest {}
}
