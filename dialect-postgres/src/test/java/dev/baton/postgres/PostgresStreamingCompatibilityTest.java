package dev.baton.postgres;

import dev.baton.testkit.compat.AbstractCompatibilityTest;
import dev.baton.testservers.TestServer;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The suites of the test kit on the writer of a PostgreSQL primary with a streaming standby, reached through a
 * multi-host URL ({@code targetServerType=primary}); nothing fails over here ({@link PostgresFailoverTest} does). With
 * a synchronous standby every commit waits for the standby's flush; with an asynchronous one the writer answers as a
 * single server does, and runs the commit-durability suite, whose standby has the commits within the wait. Which
 * suite runs on which is the test kit's {@code RunsOn}. Skipped only when the machine has no PostgreSQL server
 * binaries.
 */
@ParameterizedClass(name = "{0}")
@EnumSource(
        value = TestServer.class,
        names = {"POSTGRES_STREAMING_SYNC", "POSTGRES_STREAMING_ASYNC"})
class PostgresStreamingCompatibilityTest extends AbstractCompatibilityTest {}
