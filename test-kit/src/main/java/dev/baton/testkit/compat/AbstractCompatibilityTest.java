package dev.baton.testkit.compat;

import static dev.baton.testservers.TestServer.MARIADB_EMBEDDED;
import static dev.baton.testservers.TestServer.MARIADB_EMBEDDED_CONNECTORJ;
import static dev.baton.testservers.TestServer.MARIADB_GALERA;
import static dev.baton.testservers.TestServer.MARIADB_GALERA_SPREAD;
import static dev.baton.testservers.TestServer.MARIADB_LOCAL;
import static dev.baton.testservers.TestServer.MARIADB_LOCAL_CONNECTORJ;
import static dev.baton.testservers.TestServer.MYSQL8;
import static dev.baton.testservers.TestServer.POSTGRES_EMBEDDED;
import static dev.baton.testservers.TestServer.POSTGRES_LOCAL;
import static dev.baton.testservers.TestServer.POSTGRES_PGBOUNCER;
import static dev.baton.testservers.TestServer.POSTGRES_STREAMING_ASYNC;
import static dev.baton.testservers.TestServer.POSTGRES_STREAMING_SYNC;
import static dev.baton.testservers.TestServer.SQLSERVER;

import dev.baton.testkit.CompatibilityServers;
import dev.baton.testkit.OnEachServer;
import dev.baton.testkit.RunsOn;
import dev.baton.testservers.TestServer;
import org.junit.jupiter.api.ClassOrderer;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.TestClassOrder;
import org.junit.jupiter.params.Parameter;

/**
 * Every suite of the test kit, each declared once, as the {@code @Nested} classes of a dialect's compatibility test.
 * A dialect module extends it once per kind of server (its single servers; a cluster) and names the servers:
 *
 * <pre>
 * &#64;CompatibilityServers({POSTGRES_LOCAL, POSTGRES_EMBEDDED, POSTGRES_PGBOUNCER})
 * class PostgresCompatibilityTest extends AbstractCompatibilityTest {}</pre>
 *
 * <p>The test runs once per server of its {@link CompatibilityServers}; in each run, a suite ({@link OnEachServer})
 * without {@link RunsOn} runs on the server, one with it only when it names the server (otherwise no run, no skip). Those lists are the one
 * place that says which suite runs where: the slow suites run on one server of a kind (what they prove does not
 * change with the server's version or driver), and a few cannot run on some servers (each says why).
 *
 * <p>The process suites run last, and the one that kills sessions runs after the other.
 */
@TestClassOrder(ClassOrderer.OrderAnnotation.class)
public abstract class AbstractCompatibilityTest {
    /** The server of this run ({@link CompatibilityServers}); each suite's own run is on it, or there is none. */
    @Parameter
    protected TestServer server;

    /** For subclasses. */
    protected AbstractCompatibilityTest() {}

    @Nested
    @OnEachServer
    @RunsOn(
            value = {
                POSTGRES_LOCAL,
                POSTGRES_EMBEDDED,
                POSTGRES_PGBOUNCER,
                POSTGRES_STREAMING_SYNC,
                MARIADB_LOCAL,
                MARIADB_EMBEDDED,
                MARIADB_LOCAL_CONNECTORJ,
                MARIADB_EMBEDDED_CONNECTORJ,
                MYSQL8,
                MARIADB_GALERA,
                MARIADB_GALERA_SPREAD,
                SQLSERVER
            },
            because = ASYNC_STREAMING)
    class Transitions extends AbstractTransitionCompatibilityTest {}

    @Nested
    @OnEachServer
    @RunsOn(
            value = {POSTGRES_LOCAL, POSTGRES_EMBEDDED, MARIADB_LOCAL, MARIADB_EMBEDDED, MYSQL8},
            because = LOGIC)
    class TransitionModel extends AbstractTransitionModelTest {}

    @Nested
    @OnEachServer
    @RunsOn(
            value = {
                POSTGRES_LOCAL,
                POSTGRES_EMBEDDED,
                POSTGRES_PGBOUNCER,
                POSTGRES_STREAMING_SYNC,
                MARIADB_LOCAL,
                MARIADB_EMBEDDED,
                MARIADB_LOCAL_CONNECTORJ,
                MARIADB_EMBEDDED_CONNECTORJ,
                MYSQL8,
                MARIADB_GALERA,
                MARIADB_GALERA_SPREAD,
                SQLSERVER
            },
            because = ASYNC_STREAMING)
    class ClaimQueue extends AbstractClaimQueueCompatibilityTest {}

    @Nested
    @OnEachServer
    @RunsOn(
            value = {POSTGRES_LOCAL, POSTGRES_EMBEDDED, MARIADB_LOCAL, MARIADB_EMBEDDED, MYSQL8},
            because = LOGIC)
    class ClaimQueueModel extends AbstractClaimQueueModelTest {}

    @Nested
    @OnEachServer
    @RunsOn(
            value = {
                POSTGRES_LOCAL,
                POSTGRES_EMBEDDED,
                POSTGRES_PGBOUNCER,
                MARIADB_LOCAL,
                MARIADB_EMBEDDED,
                MARIADB_LOCAL_CONNECTORJ,
                MARIADB_EMBEDDED_CONNECTORJ,
                MYSQL8,
                MARIADB_GALERA,
                MARIADB_GALERA_SPREAD,
                SQLSERVER
            },
            because = STREAMING)
    class IdempotencyKeys extends AbstractIdempotencyKeyCompatibilityTest {}

    @Nested
    @OnEachServer
    @RunsOn(
            value = {
                POSTGRES_LOCAL,
                POSTGRES_EMBEDDED,
                POSTGRES_PGBOUNCER,
                MARIADB_LOCAL,
                MARIADB_EMBEDDED,
                MARIADB_LOCAL_CONNECTORJ,
                MARIADB_EMBEDDED_CONNECTORJ,
                MYSQL8,
                MARIADB_GALERA,
                MARIADB_GALERA_SPREAD,
                SQLSERVER
            },
            because = STREAMING)
    class Inbox extends AbstractInboxCompatibilityTest {}

    @Nested
    @OnEachServer
    @RunsOn(
            value = {
                POSTGRES_LOCAL,
                POSTGRES_EMBEDDED,
                POSTGRES_PGBOUNCER,
                POSTGRES_STREAMING_SYNC,
                MARIADB_LOCAL,
                MARIADB_EMBEDDED,
                MARIADB_LOCAL_CONNECTORJ,
                MARIADB_EMBEDDED_CONNECTORJ,
                MYSQL8,
                MARIADB_GALERA,
                MARIADB_GALERA_SPREAD,
                SQLSERVER
            },
            because = ASYNC_STREAMING)
    class Outbox extends AbstractOutboxCompatibilityTest {}

    @Nested
    @OnEachServer
    @RunsOn(
            value = {
                POSTGRES_LOCAL,
                POSTGRES_EMBEDDED,
                POSTGRES_PGBOUNCER,
                MARIADB_LOCAL,
                MARIADB_EMBEDDED,
                MARIADB_LOCAL_CONNECTORJ,
                MARIADB_EMBEDDED_CONNECTORJ,
                MYSQL8,
                MARIADB_GALERA,
                MARIADB_GALERA_SPREAD,
                SQLSERVER
            },
            because = STREAMING)
    class Verify extends AbstractVerifyCompatibilityTest {}

    @Nested
    @OnEachServer
    @RunsOn(
            value = {
                POSTGRES_LOCAL,
                POSTGRES_EMBEDDED,
                MARIADB_LOCAL,
                MARIADB_EMBEDDED,
                MARIADB_LOCAL_CONNECTORJ,
                MARIADB_EMBEDDED_CONNECTORJ,
                MYSQL8,
                SQLSERVER
            },
            because = "its harness kills the session of a client connection by the server process id it read; behind"
                    + " PgBouncer that names whichever server connection ran the query, not the one under the"
                    + " client's next statement, so the fault never fires; " + CLUSTERS)
    class Faults extends AbstractFaultCompatibilityTest {}

    @Nested
    @OnEachServer
    @RunsOn(
            value = {
                POSTGRES_LOCAL,
                POSTGRES_EMBEDDED,
                POSTGRES_PGBOUNCER,
                MARIADB_LOCAL,
                MARIADB_EMBEDDED,
                MARIADB_LOCAL_CONNECTORJ,
                MARIADB_EMBEDDED_CONNECTORJ,
                MYSQL8,
                SQLSERVER
            },
            because = CLUSTERS)
    class CallerTransactionFaults extends AbstractCallerTransactionFaultTest {}

    @Nested
    @OnEachServer
    @RunsOn(
            value = {
                POSTGRES_LOCAL,
                POSTGRES_EMBEDDED,
                POSTGRES_PGBOUNCER,
                MARIADB_LOCAL,
                MARIADB_EMBEDDED,
                MARIADB_LOCAL_CONNECTORJ,
                MARIADB_EMBEDDED_CONNECTORJ,
                MYSQL8,
                MARIADB_GALERA,
                MARIADB_GALERA_SPREAD,
                SQLSERVER
            },
            because = STREAMING)
    class Edges extends AbstractEdgeCompatibilityTest {}

    @Nested
    @OnEachServer
    @RunsOn(
            value = {POSTGRES_LOCAL, POSTGRES_EMBEDDED, MARIADB_LOCAL, MARIADB_EMBEDDED, MYSQL8},
            because = LOGIC)
    class SendPause extends AbstractSendPauseCompatibilityTest {}

    @Nested
    @OnEachServer
    @RunsOn(
            value = {
                POSTGRES_LOCAL,
                POSTGRES_EMBEDDED,
                POSTGRES_PGBOUNCER,
                MARIADB_LOCAL,
                MARIADB_EMBEDDED,
                MARIADB_LOCAL_CONNECTORJ,
                MARIADB_EMBEDDED_CONNECTORJ,
                MYSQL8,
                SQLSERVER
            },
            because = CLUSTERS)
    class ColumnTypes extends AbstractColumnTypeCompatibilityTest {}

    @Nested
    @OnEachServer
    @RunsOn(
            value = {
                POSTGRES_LOCAL, POSTGRES_EMBEDDED, POSTGRES_PGBOUNCER,
                MARIADB_LOCAL, MARIADB_EMBEDDED, MYSQL8,
                MARIADB_GALERA, MARIADB_GALERA_SPREAD
            },
            because = "session zones and the 2038 limit are the server's, not the driver's (MySQL Connector/J runs the"
                    + " driver-specific suites); SQL Server has no session zone to set; " + STREAMING)
    class TimeZones extends AbstractTimeZoneCompatibilityTest {}

    @Nested
    @OnEachServer
    @RunsOn(
            value = {
                POSTGRES_LOCAL,
                POSTGRES_EMBEDDED,
                POSTGRES_PGBOUNCER,
                MARIADB_LOCAL,
                MARIADB_EMBEDDED,
                MYSQL8,
                MARIADB_GALERA,
                MARIADB_GALERA_SPREAD,
                SQLSERVER
            },
            because = "its paged reads are the dialect's SQL, not a driver-specific path (MySQL Connector/J runs the"
                    + " driver-specific suites); " + STREAMING)
    class DeadLetters extends AbstractDeadLetterCompatibilityTest {}

    @Nested
    @OnEachServer
    @RunsOn(
            value = {POSTGRES_LOCAL, MARIADB_LOCAL},
            because = "the views' SQL is the dialect's; CI time is scarce")
    class AdminViews extends AbstractAdminViewCompatibilityTest {}

    @Nested
    @OnEachServer
    @RunsOn(
            value = {POSTGRES_LOCAL, MARIADB_LOCAL},
            because = "it proves the statements' locking and counting (the expiry sweep beside a host's row lock, the"
                    + " receipt cleanup's cost to a caller, the health of a queue ordered per key), which the server"
                    + " version does not change")
    class Housekeeping extends AbstractHousekeepingCompatibilityTest {}

    /**
     * The local servers have no standby (MariaDB reports no replication progress: no binary log, no semi-synchronous
     * replica), so no commit is ever known durable; the writer of a PostgreSQL primary with an asynchronous streaming
     * standby has every commit on the standby within the wait.
     */
    @Nested
    @OnEachServer
    @RunsOn(
            value = {POSTGRES_LOCAL, POSTGRES_STREAMING_ASYNC, MARIADB_LOCAL},
            because = "one server without a standby per dialect, and one whose standby has the commits")
    class CommitDurability extends AbstractCommitDurabilityTest {
        @Override
        protected boolean standbyHasCommits() {
            return server == POSTGRES_STREAMING_ASYNC;
        }
    }

    @Nested
    @OnEachServer
    @RunsOn(
            value = {POSTGRES_LOCAL, MARIADB_LOCAL},
            because = "the failover is a test dialect's epoch and plain SQL, so the server version adds nothing (the"
                    + " dialects' failover tests run real ones)")
    class Epochs extends AbstractEpochCompatibilityTest {}

    @Nested
    @OnEachServer
    @RunsOn(
            value = {POSTGRES_LOCAL, MARIADB_LOCAL, MARIADB_LOCAL_CONNECTORJ},
            because = "it tests the JVM's threads against a real driver (both MySQL drivers), which the embedded"
                    + " servers add nothing to; run on JDK 25 by .ci/jdk25")
    class VirtualThreads extends AbstractVirtualThreadsCompatibilityTest {}

    @Nested
    @OnEachServer
    @RunsOn(
            value = {POSTGRES_LOCAL, MARIADB_LOCAL, MARIADB_LOCAL_CONNECTORJ},
            because = "wake-ups wait on wall-clock bounds, which the embedded servers add nothing to")
    class Wakeups extends AbstractWakeupCompatibilityTest {}

    @Nested
    @OnEachServer
    @RunsOn(
            value = {POSTGRES_LOCAL},
            because = "only PostgreSQL has notifications; the suite starts a worker JVM, which the embedded server"
                    + " adds nothing to")
    class NotifyWakeups extends AbstractNotifyWakeupTest {}

    @Nested
    @OnEachServer
    @RunsOn(
            value = {POSTGRES_LOCAL, MARIADB_LOCAL, MARIADB_LOCAL_CONNECTORJ, SQLSERVER},
            because = "it proves the claim's SQL and its lock under concurrent claimers (on MariaDB the named lock held"
                    + " past the commit, through both drivers), which the server version does not change")
    class ClaimShapes extends AbstractClaimShapeCompatibilityTest {}

    @Nested
    @OnEachServer
    @RunsOn(
            value = {POSTGRES_LOCAL, MARIADB_LOCAL, MARIADB_LOCAL_CONNECTORJ, SQLSERVER},
            because = "it proves the claim's SQL under a rate limit, which the server version does not change")
    class RateLimits extends AbstractRateLimitCompatibilityTest {}

    @Nested
    @OnEachServer
    @Order(Order.DEFAULT + 1) // after the other suites: worker JVMs stopped and continued with signals
    @RunsOn(
            value = {POSTGRES_LOCAL, MARIADB_LOCAL, MYSQL8},
            because = PROCESSES)
    class SendPauseProcess extends AbstractSendPauseProcessTest {}

    @Nested
    @OnEachServer
    @Order(Order.DEFAULT + 2) // last: it kills sessions and leaves the server busy for a while
    @RunsOn(
            value = {POSTGRES_LOCAL, MARIADB_LOCAL, MYSQL8},
            because = PROCESSES)
    class ClaimProcess extends AbstractClaimProcessTest {}

    private static final String ASYNC_STREAMING = "the writer of a primary with an asynchronous standby answers"
            + " exactly as a single server does (its commits wait for nobody)";
    private static final String STREAMING = "the streaming writer runs the transitions, the claim queue and the outbox"
            + " only, on the synchronous standby, which makes every commit wait for the standby's flush";
    private static final String CLUSTERS =
            "left off the clusters, whose writers run the suites of what Baton writes," + " to keep the build's time";
    private static final String LOGIC = "Baton's own logic, tested on each PostgreSQL and MySQL version; behind the"
            + " pooler, through the other driver and on the clusters it is left out to keep the build's time; not run"
            + " on SQL Server";
    private static final String PROCESSES = "it proves the protocol between processes, not the server version, which"
            + " the other suites cover on every version";
}
