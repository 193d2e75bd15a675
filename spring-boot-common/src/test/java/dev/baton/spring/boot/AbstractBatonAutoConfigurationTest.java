package dev.baton.spring.boot;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.baton.Baton;
import dev.baton.ConfigurationException;
import dev.baton.TransitionResult;
import dev.baton.Worker;
import dev.baton.spring.boot.Orders.Pay;
import dev.baton.spring.boot.actuate.BatonEndpoint;
import dev.baton.spring.boot.actuate.QueueAdminReport;
import dev.baton.testservers.DatabaseKind;
import dev.baton.testservers.TestDatabase;
import dev.baton.testservers.TestDatabases;
import dev.baton.testservers.TestServer;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.EnumSource;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * A starter in a real Spring Boot context on each server: the bean, properties, transactions, workers, health, the
 * endpoint. Each starter extends it in a few lines, reading its {@code baton} health indicator through
 * {@link #health}, whose Spring Boot types differ between Boot 3.5 and Boot 4.
 */
@ParameterizedClass(name = "{0}")
@EnumSource(
        value = TestServer.class,
        names = {"POSTGRES_LOCAL", "POSTGRES_EMBEDDED", "MARIADB_LOCAL", "MARIADB_EMBEDDED"})
public abstract class AbstractBatonAutoConfigurationTest {
    @Parameter
    TestServer server;

    /**
     * The {@code baton} health indicator's answer, with details, as Spring Boot's status code ({@code UP}, {@code
     * DOWN}, {@code OUT_OF_SERVICE}) and details.
     */
    public record Health(String status, Map<String, Object> details) {}

    /** Asks the context's {@code baton} health indicator (the bean of the starter's own class). */
    protected abstract Health health(ConfigurableApplicationContext ctx);

    @Test
    void theBatonBeanIsBuiltOverTheApplicationsDataSourceAndCreatesItsOwnTables() {
        TestDatabase db = server.get();
        String rateLimits = TestDatabases.uniqueName("rate_limits");
        try (Orders orders = new Orders(db);
                ConfigurableApplicationContext ctx =
                        TestApp.start(db, orders, List.of(), "baton.own-tables.rate-limits=" + rateLimits)) {
            Baton baton = ctx.getBean(Baton.class);
            assertEquals(
                    db.kind() == DatabaseKind.POSTGRES ? "PostgresDialect" : "MySqlDialect",
                    baton.dialect().getClass().getSimpleName());
            assertEquals(
                    List.of(orders.outbox, rateLimits),
                    ctx.getBean(OwnTablesCreated.class).created());
            assertEquals(0, orders.count(orders.outbox, "1 = 1"));
            assertEquals(0, orders.count(rateLimits, "1 = 1"));
            // Boot 3.5's Actuator defines an OpenTelemetry bean when the SDK is on the class path, Boot 4's does not
            assertEquals(
                    ctx.getBeanNamesForType(io.opentelemetry.api.OpenTelemetry.class).length > 0,
                    ctx.containsBean("batonTracing"),
                    "tracing exactly when there is an OpenTelemetry bean");
        } finally {
            db.dropTableIfExists(rateLimits);
        }
    }

    @Test
    void aTransitionAndAnOutboxMessageInsideTransactionalRollBackAndCommitWithIt() throws Exception {
        TestDatabase db = server.get();
        try (Orders orders = new Orders(db);
                ConfigurableApplicationContext ctx = TestApp.start(db, orders, List.of())) {
            TestApp.PaymentService payments = ctx.getBean(TestApp.PaymentService.class);
            orders.insert(1, Pay.PENDING);

            assertThrows(IllegalStateException.class, () -> payments.pay(1, "gw-1", true));
            assertTrue(payments.txActive());
            assertEquals(1, payments.activeInside(), "Baton took a second connection inside the transaction");
            assertEquals(1, orders.count("id = 1 AND payment_status = 0 AND payment_transaction_id IS NULL"));
            assertEquals(0, orders.count(orders.outbox, "1 = 1"), "the message outlived the rollback");
            TestApp.Transitions transitions = ctx.getBean(TestApp.Transitions.class);
            assertEquals(List.of(), transitions.seen, "a listener heard of a transition that was rolled back");

            assertInstanceOf(TransitionResult.Applied.class, payments.pay(1, "gw-1", false));
            assertEquals(1, payments.activeInside());
            assertEquals(1, orders.count("id = 1 AND payment_status = 1 AND payment_transaction_id = 'gw-1'"));
            assertEquals(1, orders.count(orders.outbox, "1 = 1"));
            assertEquals(1, transitions.seen.size(), "the listener bean hears of the committed transition");
            assertInstanceOf(TransitionResult.Applied.class, transitions.seen.get(0));

            // the gateway calls back again: nothing changes, no second message
            assertInstanceOf(TransitionResult.AlreadyInTarget.class, payments.pay(1, "gw-1", false));
            assertEquals(1, orders.count(orders.outbox, "1 = 1"));
        }
    }

    @Test
    void aWorkerBeanStartsWithTheContextAndStopsWhenItCloses() {
        TestDatabase db = server.get();
        try (Orders orders = new Orders(db)) {
            orders.insert(1, Pay.PAID);
            orders.insert(2, Pay.PENDING); // not eligible: stays
            Worker worker;
            try (ConfigurableApplicationContext ctx =
                    TestApp.start(db, orders, List.of(), "test.worker=true", "baton.queues.order-sync.concurrency=2")) {
                BatonWorkers workers = ctx.getBean(BatonWorkers.class);
                assertTrue(workers.isRunning());
                worker = workers.running().get("order-sync");
                assertTrue(worker.isRunning());
                Await.until(() -> orders.count("id = 1 AND sync_status = 2 AND third_party_guid = 'guid-1'") == 1);
                assertEquals(1, orders.count("id = 2 AND sync_status = 0"));
            }
            assertFalse(worker.isRunning(), "the worker outlived the context");
            orders.insert(3, Pay.PAID);
            Await.sleep(1500); // a worker still polling would take it
            assertEquals(1, orders.count("id = 3 AND sync_status = 0"));
        }
    }

    @Test
    void noWorkerStartsWhenWorkersAreDisabled() {
        TestDatabase db = server.get();
        try (Orders orders = new Orders(db);
                ConfigurableApplicationContext ctx = TestApp.start(
                        db, orders, List.of(), "test.worker=true", "baton.queues.order-sync.enabled=false")) {
            assertEquals(Map.of(), ctx.getBean(BatonWorkers.class).running());
            Map<String, Object> details = health(ctx).details();
            assertEquals(
                    "disabled",
                    ((Map<?, ?>) details.get("queues"))
                            .values().stream()
                                    .map(r -> ((QueueReport) r).worker())
                                    .findFirst()
                                    .orElseThrow());
        }
    }

    @Test
    void aBadQueueSettingFailsTheStartNamingTheQueue() {
        TestDatabase db = server.get();
        try (Orders orders = new Orders(db)) {
            RuntimeException e = assertThrows(RuntimeException.class, () -> TestApp.start(
                            db, orders, List.of(), "test.worker=true", "baton.queues.order-sync.batch-size=0")
                    .close());
            Throwable cause = e;
            while (!(cause instanceof ConfigurationException) && cause.getCause() != null) {
                cause = cause.getCause();
            }
            assertInstanceOf(ConfigurationException.class, cause, e.toString());
            assertTrue(cause.getMessage().contains("queue 'order-sync'"), cause.getMessage());
        }
    }

    /**
     * {@code baton.queues."[outbox:...]".lease} was silently ignored (the outbox's lease is its Options'): the start
     * now fails naming the queue and the way to set it; a lease the queue's definition reads is accepted.
     */
    @Test
    void aLeasePropertyTheQueueDoesNotCarryFailsTheStart() {
        TestDatabase db = server.get();
        try (Orders orders = new Orders(db)) {
            String outboxQueue = "outbox:" + orders.outbox;
            // a system property: SpringApplicationBuilder.properties would split "key=value" at the queue's colon
            String key = "baton.queues.[" + outboxQueue + "].lease";
            System.setProperty(key, "10s");
            RuntimeException e;
            try {
                e = assertThrows(
                        RuntimeException.class, () -> TestApp.start(db, orders, List.of(), "test.dispatcher=true")
                                .close());
            } finally {
                System.clearProperty(key);
            }
            Throwable cause = e;
            while (!(cause instanceof ConfigurationException) && cause.getCause() != null) {
                cause = cause.getCause();
            }
            assertInstanceOf(ConfigurationException.class, cause, e.toString());
            assertTrue(cause.getMessage().contains("queue '" + outboxQueue + "'"), cause.getMessage());
            assertTrue(cause.getMessage().contains("Outbox.Options"), cause.getMessage());
            try (ConfigurableApplicationContext ctx =
                    TestApp.start(db, orders, List.of(), "test.worker=true", "baton.queues.order-sync.lease=45s")) {
                assertEquals(
                        java.time.Duration.ofSeconds(45),
                        ctx.getBean(BatonWorkers.class).queues().get(0).lease(),
                        "read by the queue's definition (leaseOr): accepted");
            }
        }
    }

    @Test
    void healthIsDownWhileTheDatabaseDoesNotAnswerAndUpAgainAfterwards() {
        TestDatabase db = server.get();
        try (Orders orders = new Orders(db);
                ConfigurableApplicationContext ctx =
                        TestApp.start(db, orders, List.of(TestApp.OutageConfig.class), "test.worker=true")) {
            TestApp.Outage outage = ctx.getBean(TestApp.Outage.class);
            assertEquals("UP", health(ctx).status());

            outage.down = true;
            var down = health(ctx);
            assertEquals("DOWN", down.status(), down.toString());

            outage.down = false;
            assertEquals("UP", health(ctx).status());
        }
    }

    @Test
    void healthIsDownWhileAWorkersPollsKeepFailingAndUpWhenTheyRecover() {
        TestDatabase db = server.get();
        try (Orders orders = new Orders(db);
                ConfigurableApplicationContext ctx = TestApp.start(
                        db,
                        orders,
                        List.of(TestApp.OutageConfig.class),
                        "test.worker=true",
                        "baton.health.max-failed-polls=3",
                        "baton.queues.order-sync.poll-interval=50ms",
                        "baton.queues.order-sync.max-idle-interval=200ms")) {
            TestApp.Outage outage = ctx.getBean(TestApp.Outage.class);
            Worker worker = ctx.getBean(BatonWorkers.class).running().get("order-sync");
            assertEquals("UP", health(ctx).status());

            outage.pollersDown = true; // the worker's connections are refused, the indicator's query is answered
            Await.until(() -> worker.consecutiveFailedPolls() >= 3);
            var down = health(ctx);
            assertEquals("DOWN", down.status(), down.toString());
            assertTrue(worker.isRunning(), "the worker keeps running (and retrying): running is not polling");
            QueueReport report = (QueueReport) ((Map<?, ?>) down.details().get("queues")).get("order-sync");
            assertEquals("running", report.worker());
            assertTrue(report.failedPolls() >= 3, report.toString());
            assertTrue(down.details().get("problems").toString().contains("polls failed"), down.toString());

            outage.pollersDown = false;
            Await.until(() -> worker.consecutiveFailedPolls() == 0);
            assertEquals("UP", health(ctx).status());
        }
    }

    /**
     * Claims succeed while every commit of outcomes fails (the handler sets a column the table lacks): the polls'
     * count goes 1, 0, 1, 0, and only the count of failed commits, reset by a commit that succeeds alone, shows it.
     */
    @Test
    void healthIsDownWhileEveryCommitOfOutcomesFailsAlthoughClaimsSucceed() {
        TestDatabase db = server.get();
        try (Orders orders = new Orders(db)) {
            for (long id = 1; id <= 4; id++) {
                orders.insert(id, Pay.PAID);
            }
            try (ConfigurableApplicationContext ctx = TestApp.start(
                    db,
                    orders,
                    List.of(),
                    "test.worker=true",
                    "test.outcome-column=no_such_column",
                    "baton.health.max-failed-polls=3",
                    "baton.queues.order-sync.batch-size=1",
                    "baton.queues.order-sync.poll-interval=50ms",
                    "baton.queues.order-sync.max-idle-interval=200ms")) {
                Worker worker = ctx.getBean(BatonWorkers.class).running().get("order-sync");
                Await.until(() -> worker.consecutiveFailedFlushes() >= 3);
                var down = health(ctx);
                assertEquals("DOWN", down.status(), down.toString());
                QueueReport report = (QueueReport) ((Map<?, ?>) down.details().get("queues")).get("order-sync");
                assertTrue(report.failedFlushes() >= 3, report.toString());
                assertTrue(report.failedPolls() < 3, "claims succeed in between: " + report);
                assertTrue(
                        down.details().get("problems").toString().contains("commits of outcomes failed"),
                        down.toString());
                assertEquals(0, orders.count("sync_status = 2"), "nothing was completed");
            }
        }
    }

    @Test
    void anOldBacklogIsOutOfServiceAndTheEndpointListsTheQueue() {
        TestDatabase db = server.get();
        try (Orders orders = new Orders(db)) {
            orders.insertAged(1, Pay.PAID, 30); // eligible, paid 30 minutes ago, and no worker runs here
            db.execute("INSERT INTO " + orders.table + " (id, payment_status, sync_status, attempts, last_error)"
                    + " VALUES (2, 1, 3, 5, 'the sink said no')"); // dead after 5 attempts
            try (ConfigurableApplicationContext ctx = TestApp.start(
                    db,
                    orders,
                    List.of(),
                    "baton.health.max-backlog-age=10m",
                    "management.endpoints.web.exposure.include=health,baton")) {
                var health = health(ctx);
                assertEquals("OUT_OF_SERVICE", health.status(), health.toString());
                List<QueueReport> queues = ctx.getBean(BatonEndpoint.class).queues();
                assertEquals(
                        List.of("order-sync", "outbox:" + orders.outbox),
                        queues.stream().map(QueueReport::queue).toList(),
                        "the queue bean, then the outbox bean's queue");
                QueueReport q = queues.get(0);
                assertEquals(BatonQueues.NO_WORKER, q.worker());
                assertEquals(0, q.failedPolls());
                assertEquals(1, q.eligible());
                assertTrue(java.time.Duration.parse(q.oldestEligibleAge()).toMinutes() >= 29, q.toString());
                QueueReport outbox = queues.get(1);
                assertEquals(orders.outbox, outbox.table());
                assertEquals(0, outbox.eligible());
                assertEquals(null, outbox.oldestEligibleAge());
                BatonEndpoint endpoint = ctx.getBean(BatonEndpoint.class);
                var admin = endpoint.queue("order-sync");
                assertEquals("order-sync", admin.queue());
                assertEquals(1, admin.deadCount());
                assertEquals(List.of(new QueueAdminReport.Dead("2", 5, "the sink said no", false)), admin.dead());
                assertEquals(0, admin.unknownCount());
                assertEquals(null, endpoint.queue("no-such-queue"));
            }
            try (ConfigurableApplicationContext ctx =
                    TestApp.start(db, orders, List.of(), "baton.health.max-backlog-age=1h")) {
                assertEquals("UP", health(ctx).status());
            }
        }
    }
}
