package dev.baton.spring.boot;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.baton.TransitionResult;
import dev.baton.micrometer.BatonMetrics;
import dev.baton.spring.boot.Orders.Pay;
import dev.baton.testservers.TestDatabase;
import dev.baton.testservers.TestServer;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.EnumSource;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * With Spring Boot's Micrometer auto-configuration (a {@code SimpleMeterRegistry}), the starter's meters count a
 * known workload exactly and the gauges show each queue's counts, on each server.
 * Each starter extends it with its Spring Boot.
 */
@ParameterizedClass(name = "{0}")
@EnumSource(
        value = TestServer.class,
        names = {"POSTGRES_LOCAL", "POSTGRES_EMBEDDED", "MARIADB_LOCAL", "MARIADB_EMBEDDED"})
public abstract class AbstractBatonMetricsAutoConfigurationTest {
    @Parameter
    TestServer server;

    @Test
    void theMetersCountAKnownWorkloadExactly() throws Exception {
        TestDatabase db = server.get();
        try (Orders orders = new Orders(db)) {
            orders.insert(1, Pay.PENDING);
            orders.insert(2, Pay.PAID);
            orders.insert(3, Pay.PAID);
            orders.insert(4, Pay.PAID);
            orders.insert(5, Pay.PENDING);
            try (ConfigurableApplicationContext ctx =
                    TestApp.start(db, orders, List.of(), "test.worker=true", "test.dispatcher=true")) {
                MeterRegistry registry = ctx.getBean(MeterRegistry.class);
                String sync = "order-sync";
                String outboxQueue = "outbox:" + orders.outbox;
                assertEquals(
                        java.util.Set.of(sync, outboxQueue),
                        registry.find(BatonMetrics.QUEUE_ELIGIBLE).gauges().stream()
                                .map(g -> g.getId().getTag("queue"))
                                .collect(java.util.stream.Collectors.toSet()),
                        "gauges for the worker's queue and the outbox's");

                // the worker's first claim takes the three paid orders at once (batch size 10)
                Await.until(() -> count(registry, BatonMetrics.COMPLETIONS, "queue", sync) == 3);
                TestApp.PaymentService payments = ctx.getBean(TestApp.PaymentService.class);
                assertThrows(IllegalStateException.class, () -> payments.pay(5, "gw-5", true)); // rolled back
                assertInstanceOf(TransitionResult.Applied.class, payments.pay(1, "gw-1", false));
                assertInstanceOf(TransitionResult.AlreadyInTarget.class, payments.pay(1, "gw-1", false));
                // order 1 is paid now: a second claim takes it; its message is dispatched
                // the dispatched count comes with the handler, the completion after its flush commits: wait for both
                Await.until(() -> count(registry, BatonMetrics.COMPLETIONS, "queue", sync) == 4
                        && count(registry, BatonMetrics.DISPATCHED, "outbox", orders.outbox) == 1
                        && count(registry, BatonMetrics.COMPLETIONS, "queue", outboxQueue) == 1);

                String table = orders.table;
                assertEquals(1, count(registry, BatonMetrics.TRANSITIONS, "table", table, "result", "applied"));
                assertEquals(
                        1, count(registry, BatonMetrics.TRANSITIONS, "table", table, "result", "already_in_target"));
                assertEquals(2, total(registry, BatonMetrics.TRANSITIONS), "the rolled-back transition is not counted");
                assertEquals(2, count(registry, BatonMetrics.CLAIMS, "queue", sync));
                assertEquals(4, count(registry, BatonMetrics.ROWS_CLAIMED, "queue", sync));
                assertEquals(
                        4,
                        registry.get(BatonMetrics.HANDLER)
                                .tags("queue", sync, "outcome", "complete")
                                .timer()
                                .count());
                assertEquals(1, count(registry, BatonMetrics.ENQUEUED, "outbox", orders.outbox));
                assertEquals(1, count(registry, BatonMetrics.CLAIMS, "queue", outboxQueue));
                assertEquals(1, count(registry, BatonMetrics.COMPLETIONS, "queue", outboxQueue));
                assertEquals(
                        1,
                        registry.get(BatonMetrics.LAG)
                                .tags("outbox", orders.outbox)
                                .timer()
                                .count());
                for (String none : List.of(
                        BatonMetrics.RETRIES,
                        BatonMetrics.DEAD_LETTERS,
                        BatonMetrics.LEASES_LOST,
                        BatonMetrics.FENCED_REFUSED,
                        BatonMetrics.UNKNOWN_SENDS,
                        BatonMetrics.WORKER_ERRORS)) {
                    assertEquals(0, total(registry, none), none);
                }
                assertEquals(1, ctx.getBean(TestApp.Delivered.class).messages.size());
            }
        }
    }

    @Test
    void theGaugesShowEachQueuesCounts() throws Exception {
        TestDatabase db = server.get();
        try (Orders orders = new Orders(db)) {
            orders.insert(1, Pay.PENDING);
            orders.insert(2, Pay.PAID);
            orders.insert(3, Pay.PAID);
            orders.insert(4, Pay.PENDING);
            orders.insertAged(5, Pay.PAID, 30);
            // no worker: the rows stay where they are; every read queries (gauge-refresh 0)
            try (ConfigurableApplicationContext ctx =
                    TestApp.start(db, orders, List.of(), "baton.metrics.gauge-refresh=0s")) {
                MeterRegistry registry = ctx.getBean(MeterRegistry.class);
                TestApp.PaymentService payments = ctx.getBean(TestApp.PaymentService.class);
                assertInstanceOf(TransitionResult.Applied.class, payments.pay(1, "gw-1", false));
                assertInstanceOf(TransitionResult.Applied.class, payments.payAndAnnounce(4, "gw-4"));
                assertEquals(
                        2,
                        count(registry, BatonMetrics.ENQUEUED, "outbox", orders.outbox),
                        "both joined forms report their message after the commit");

                assertEquals(5, gauge(registry, BatonMetrics.QUEUE_ELIGIBLE, "order-sync"), "orders 1 to 5");
                assertEquals(0, gauge(registry, BatonMetrics.QUEUE_WAITING, "order-sync"));
                assertEquals(0, gauge(registry, BatonMetrics.QUEUE_PROCESSING, "order-sync"));
                assertEquals(0, gauge(registry, BatonMetrics.QUEUE_DEAD, "order-sync"));
                double age = gauge(registry, BatonMetrics.QUEUE_OLDEST_AGE, "order-sync");
                assertTrue(age >= 29 * 60 && age < 60 * 60, "order 5 was paid 30 minutes ago: " + age);

                String outbox = "outbox:" + orders.outbox;
                assertEquals(2, gauge(registry, BatonMetrics.QUEUE_ELIGIBLE, outbox), "the payments' messages");
                assertEquals(0, gauge(registry, BatonMetrics.QUEUE_DEAD, outbox));

                orders.insert(6, Pay.PAID);
                orders.insert(7, Pay.PENDING);
                assertEquals(6, gauge(registry, BatonMetrics.QUEUE_ELIGIBLE, "order-sync"), "read again");
                assertEquals(1, gauge(registry, BatonMetrics.QUEUE_WAITING, "order-sync"), "order 7: not paid");
            }
        }
    }

    /** The counter's count; 0 before it is registered (at its first increment). */
    private static double count(MeterRegistry registry, String name, String... tags) {
        Counter c = registry.find(name).tags(tags).counter();
        return c == null ? 0 : c.count();
    }

    /** The sum over every counter of that name (0 when none was registered). */
    private static double total(MeterRegistry registry, String name) {
        return registry.find(name).counters().stream()
                .mapToDouble(c -> c.count())
                .sum();
    }

    private static double gauge(MeterRegistry registry, String name, String queue) {
        return registry.get(name).tag("queue", queue).gauge().value();
    }
}
