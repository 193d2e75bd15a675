package dev.baton.postgres;

import dev.baton.testkit.compat.AbstractCallerTransactionFaultTest;
import dev.baton.testkit.compat.AbstractClaimQueueCompatibilityTest;
import dev.baton.testkit.compat.AbstractColumnTypeCompatibilityTest;
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
 * The suites of the test kit on the local PostgreSQL behind PgBouncer in transaction mode ({@link
 * TestServer#POSTGRES_PGBOUNCER}): each transaction may run on another server connection, so whatever Baton relied on
 * from a session would show here. Skipped only when the local PostgreSQL is (or, outside CI, when the machine has no
 * {@code pgbouncer}; {@code .ci/run} installs it).
 *
 * <p>Left out: the fault suite ({@code AbstractFaultCompatibilityTest}), whose harness kills "the session" of a client
 * connection by the {@code pg_backend_pid()} it read; behind the pooler that names whichever server connection ran
 * that query, not the one under the client's next statement (measured: its 161 other cases passed, the 33 {@code
 * KILL_BACKEND} cases failed because the fault never fired). The claim process and model suites passed behind
 * PgBouncer too (4, 1 and 1 tests) but take about 140 s together: left out to keep this class near a minute.
 */
@ParameterizedClass(name = "{0}")
@EnumSource(
        value = TestServer.class,
        names = {"POSTGRES_PGBOUNCER"})
class PostgresPgBouncerCompatibilityTest {
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
    class CallerTransactionFaults extends AbstractCallerTransactionFaultTest {}

    @Nested
    class Edges extends AbstractEdgeCompatibilityTest {}

    @Nested
    class ColumnTypes extends AbstractColumnTypeCompatibilityTest {}

    @Nested
    class TimeZones extends AbstractTimeZoneCompatibilityTest {}

    @Nested
    class DeadLetters extends AbstractDeadLetterCompatibilityTest {}
}
