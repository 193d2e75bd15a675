package dev.baton.postgres;

import static dev.baton.testservers.TestServer.POSTGRES_STREAMING_ASYNC;
import static dev.baton.testservers.TestServer.POSTGRES_STREAMING_SYNC;

import dev.baton.testkit.CompatibilityServers;
import dev.baton.testkit.compat.AbstractCompatibilityTest;

/**
 * The suites of the test kit on the writer of a PostgreSQL primary with a streaming standby, reached through a
 * multi-host URL ({@code targetServerType=primary}); nothing fails over here ({@link PostgresFailoverTest} does). With
 * a synchronous standby every commit waits for the standby's flush; with an asynchronous one the writer answers as a
 * single server does, and runs the commit-durability suite, whose standby has the commits within the wait. Which
 * suite runs on which is the test kit's {@code RunsOn}. Skipped only when the machine has no PostgreSQL server
 * binaries.
 */
@CompatibilityServers({POSTGRES_STREAMING_SYNC, POSTGRES_STREAMING_ASYNC})
class PostgresStreamingCompatibilityTest extends AbstractCompatibilityTest {}
