package dev.baton.postgres;

import static dev.baton.testservers.TestServer.POSTGRES_EMBEDDED;
import static dev.baton.testservers.TestServer.POSTGRES_LOCAL;
import static dev.baton.testservers.TestServer.POSTGRES_PGBOUNCER;

import dev.baton.testkit.CompatibilityServers;
import dev.baton.testkit.compat.AbstractCompatibilityTest;

/**
 * The suites of the test kit on each single PostgreSQL: the local server (skipped with the reason when it does not
 * answer, unless {@code CI=true}), the embedded PostgreSQL 18 this JVM starts, and the local server behind PgBouncer
 * in transaction mode, where each transaction may run on another server connection, so that whatever Baton relied on
 * from a session would show (skipped only when the local server is, or, outside CI, when the machine has no {@code
 * pgbouncer}; {@code .ci/run} installs it). Which suite runs on which server is the test kit's {@code RunsOn}.
 */
@CompatibilityServers({POSTGRES_LOCAL, POSTGRES_EMBEDDED, POSTGRES_PGBOUNCER})
class PostgresCompatibilityTest extends AbstractCompatibilityTest {}
