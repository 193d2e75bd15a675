package dev.baton.mysql;

import dev.baton.testkit.compat.AbstractCallerTransactionFaultTest;
import dev.baton.testkit.compat.AbstractClaimQueueCompatibilityTest;
import dev.baton.testkit.compat.AbstractClaimQueueModelTest;
import dev.baton.testkit.compat.AbstractColumnTypeCompatibilityTest;
import dev.baton.testkit.compat.AbstractDeadLetterCompatibilityTest;
import dev.baton.testkit.compat.AbstractEdgeCompatibilityTest;
import dev.baton.testkit.compat.AbstractFaultCompatibilityTest;
import dev.baton.testkit.compat.AbstractIdempotencyKeyCompatibilityTest;
import dev.baton.testkit.compat.AbstractInboxCompatibilityTest;
import dev.baton.testkit.compat.AbstractOutboxCompatibilityTest;
import dev.baton.testkit.compat.AbstractSendPauseCompatibilityTest;
import dev.baton.testkit.compat.AbstractTimeZoneCompatibilityTest;
import dev.baton.testkit.compat.AbstractTransitionCompatibilityTest;
import dev.baton.testkit.compat.AbstractTransitionModelTest;
import dev.baton.testkit.compat.AbstractVerifyCompatibilityTest;
import dev.baton.testservers.TestServer;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Every suite of the test kit on each server of the MySQL dialect: the local MariaDB (skipped with the reason when it
 * does not answer, unless {@code CI=true}), the embedded MariaDB 11.4 this JVM starts, and MySQL 8 (a URL or a
 * container; skipped with the reason when there is neither).
 */
@ParameterizedClass(name = "{0}")
@EnumSource(
        value = TestServer.class,
        names = {"MARIADB_LOCAL", "MARIADB_EMBEDDED", "MYSQL8"})
class MySqlCompatibilityTest {
    /** The server of this run; the nested suites find it here (see {@code BatonDatabaseExtension}). */
    @Parameter
    TestServer server;

    @Nested
    class Transitions extends AbstractTransitionCompatibilityTest {}

    @Nested
    class TransitionModel extends AbstractTransitionModelTest {}

    @Nested
    class ClaimQueue extends AbstractClaimQueueCompatibilityTest {}

    @Nested
    class ClaimQueueModel extends AbstractClaimQueueModelTest {}

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
    class SendPause extends AbstractSendPauseCompatibilityTest {}

    @Nested
    class ColumnTypes extends AbstractColumnTypeCompatibilityTest {}

    @Nested
    class TimeZones extends AbstractTimeZoneCompatibilityTest {}

    @Nested
    class DeadLetters extends AbstractDeadLetterCompatibilityTest {}
}
