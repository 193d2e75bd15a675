package dev.baton.mysql;

import dev.baton.testkit.compat.AbstractCallerTransactionFaultTest;
import dev.baton.testkit.compat.AbstractClaimQueueCompatibilityTest;
import dev.baton.testkit.compat.AbstractColumnTypeCompatibilityTest;
import dev.baton.testkit.compat.AbstractEdgeCompatibilityTest;
import dev.baton.testkit.compat.AbstractFaultCompatibilityTest;
import dev.baton.testkit.compat.AbstractIdempotencyKeyCompatibilityTest;
import dev.baton.testkit.compat.AbstractInboxCompatibilityTest;
import dev.baton.testkit.compat.AbstractOutboxCompatibilityTest;
import dev.baton.testkit.compat.AbstractTransitionCompatibilityTest;
import dev.baton.testkit.compat.AbstractVerifyCompatibilityTest;
import dev.baton.testservers.TestServer;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The suites that exercise driver-specific paths, on MariaDB 10.11 (local) and 11.4 (embedded) through MySQL
 * Connector/J ({@code jdbc:mysql:} URLs; the embedded one with {@code rewriteBatchedStatements=true}), as MySQL users
 * connect: error codes and SQLStates (transitions' conflicts, inbox and key duplicates, verify's metadata), generated
 * keys (outbox ids), batch and update counts (claims, fenced batches, edges), column types as the driver reports them,
 * lost connections and lost replies as the driver reports them (the fault suite). The model tests and the worker
 * processes run with MariaDB Connector/J in {@link MySqlCompatibilityTest} only, to keep the build's time.
 */
@ParameterizedClass(name = "{0}")
@EnumSource(
        value = TestServer.class,
        names = {"MARIADB_LOCAL_CONNECTORJ", "MARIADB_EMBEDDED_CONNECTORJ"})
class MySqlConnectorJCompatibilityTest {
    /** The server of this run; the nested suites find it here (see {@code BatonDatabaseExtension}). */
    @Parameter
    TestServer server;

    @Nested
    class Transitions extends AbstractTransitionCompatibilityTest {}

    @Nested
    class ClaimQueue extends AbstractClaimQueueCompatibilityTest {}

    @Nested
    class IdempotencyKeys extends AbstractIdempotencyKeyCompatibilityTest {}

    @Nested
    class Inbox extends AbstractInboxCompatibilityTest {}

    @Nested
    class Outbox extends AbstractOutboxCompatibilityTest {}

    @Nested
    class Verify extends AbstractVerifyCompatibilityTest {}

    @Nested
    class Edges extends AbstractEdgeCompatibilityTest {}

    @Nested
    class ColumnTypes extends AbstractColumnTypeCompatibilityTest {}

    @Nested
    class Faults extends AbstractFaultCompatibilityTest {}

    @Nested
    class CallerTransactionFaults extends AbstractCallerTransactionFaultTest {}
}
