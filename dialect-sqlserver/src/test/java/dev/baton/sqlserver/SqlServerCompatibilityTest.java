package dev.baton.sqlserver;

import dev.baton.testkit.compat.AbstractCallerTransactionFaultTest;
import dev.baton.testkit.compat.AbstractClaimQueueCompatibilityTest;
import dev.baton.testkit.compat.AbstractClaimShapeCompatibilityTest;
import dev.baton.testkit.compat.AbstractColumnTypeCompatibilityTest;
import dev.baton.testkit.compat.AbstractDeadLetterCompatibilityTest;
import dev.baton.testkit.compat.AbstractEdgeCompatibilityTest;
import dev.baton.testkit.compat.AbstractFaultCompatibilityTest;
import dev.baton.testkit.compat.AbstractIdempotencyKeyCompatibilityTest;
import dev.baton.testkit.compat.AbstractInboxCompatibilityTest;
import dev.baton.testkit.compat.AbstractOutboxCompatibilityTest;
import dev.baton.testkit.compat.AbstractRateLimitCompatibilityTest;
import dev.baton.testkit.compat.AbstractTransitionCompatibilityTest;
import dev.baton.testkit.compat.AbstractVerifyCompatibilityTest;
import dev.baton.testservers.TestServer;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The suites of the test kit on SQL Server: {@code BATON_TEST_SQLSERVER_URL}, or a container where Docker answers;
 * skipped with the reason when there is neither.
 */
@ParameterizedClass(name = "{0}")
@EnumSource(
        value = TestServer.class,
        names = {"SQLSERVER"})
class SqlServerCompatibilityTest {
    /** The server of this run; the nested suites find it here (see {@code BatonDatabaseExtension}). */
    @Parameter
    TestServer server;

    @Nested
    class Transitions extends AbstractTransitionCompatibilityTest {}

    @Nested
    class ClaimQueue extends AbstractClaimQueueCompatibilityTest {}

    @Nested
    class ClaimShapes extends AbstractClaimShapeCompatibilityTest {}

    @Nested
    class RateLimits extends AbstractRateLimitCompatibilityTest {}

    @Nested
    class IdempotencyKeys extends AbstractIdempotencyKeyCompatibilityTest {}

    @Nested
    class Inbox extends AbstractInboxCompatibilityTest {}

    @Nested
    class Outbox extends AbstractOutboxCompatibilityTest {}

    @Nested
    class Verify extends AbstractVerifyCompatibilityTest {}

    @Nested
    class Faults extends AbstractFaultCompatibilityTest {}

    @Nested
    class CallerTransactionFaults extends AbstractCallerTransactionFaultTest {}

    @Nested
    class Edges extends AbstractEdgeCompatibilityTest {}

    @Nested
    class ColumnTypes extends AbstractColumnTypeCompatibilityTest {}

    @Nested
    class DeadLetters extends AbstractDeadLetterCompatibilityTest {}
}
