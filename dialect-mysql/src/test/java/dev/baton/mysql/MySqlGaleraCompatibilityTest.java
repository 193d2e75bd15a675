package dev.baton.mysql;

import dev.baton.testkit.compat.AbstractClaimQueueCompatibilityTest;
import dev.baton.testkit.compat.AbstractDeadLetterCompatibilityTest;
import dev.baton.testkit.compat.AbstractEdgeCompatibilityTest;
import dev.baton.testkit.compat.AbstractIdempotencyKeyCompatibilityTest;
import dev.baton.testkit.compat.AbstractInboxCompatibilityTest;
import dev.baton.testkit.compat.AbstractOutboxCompatibilityTest;
import dev.baton.testkit.compat.AbstractTimeZoneCompatibilityTest;
import dev.baton.testkit.compat.AbstractTransitionCompatibilityTest;
import dev.baton.testkit.compat.AbstractVerifyCompatibilityTest;
import dev.baton.testservers.TestServer;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Suites of the test kit on a three-node MariaDB Galera cluster ({@code GaleraCluster}), written through node 1 (a
 * {@code sequential} URL, as behind a Galera-aware proxy) while the other two apply its writesets synchronously.
 * Skipped only when the machine has no {@code mariadbd} or {@code galera-4}.
 */
@ParameterizedClass(name = "{0}")
@EnumSource(
        value = TestServer.class,
        names = {"MARIADB_GALERA"})
class MySqlGaleraCompatibilityTest {
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
    class TimeZones extends AbstractTimeZoneCompatibilityTest {}

    @Nested
    class DeadLetters extends AbstractDeadLetterCompatibilityTest {}
}
