package dev.baton.examples.spring;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.jdbc.core.simple.JdbcClient;

/**
 * The example as its README command starts it (embedded PostgreSQL, no data source configured), on a real port:
 * duplicate callbacks, the timer job, the sweep and a late callback.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class PaymentApplicationTest {
    private ConfigurableApplicationContext app;
    private HttpClient http;
    private String base;
    private JdbcClient jdbc;

    /** Arguments beyond the test's own: none, so the application starts its embedded PostgreSQL. */
    List<String> arguments() {
        return List.of();
    }

    /** Moves an order's creation 20 minutes back. */
    String ageOrderSql() {
        return "UPDATE orders SET created_at = created_at - INTERVAL '20 minutes' WHERE id = ?";
    }

    @BeforeAll
    void start() {
        List<String> args = new ArrayList<>(
                List.of("--server.port=0", "--payments.expiry-sweep-interval=PT1H", "--spring.main.banner-mode=off"));
        args.addAll(arguments());
        app = PaymentApplication.application().run(args.toArray(String[]::new));
        base = "http://localhost:" + app.getEnvironment().getProperty("local.server.port");
        http = HttpClient.newHttpClient();
        jdbc = app.getBean(JdbcClient.class);
    }

    @AfterAll
    void stop() {
        if (app != null) {
            app.close();
        }
    }

    @Test
    void duplicateCallbacksGiveOnePaymentOneMessageAndOneThirdPartyRecord() throws Exception {
        post("/orders", "{\"orderId\": 1, \"amountCents\": 1999}");
        String callback = "{\"orderId\": 1, \"gatewayTransactionId\": \"gw-1\", \"notificationId\": \"n-1\"}";
        String first = post("/gateway/callback", callback);
        assertTrue(first.contains("\"ACKNOWLEDGED\"") && first.contains("Applied"), first);
        // the same notification again (inbox), and a second notification of the same payment (transition)
        assertTrue(post("/gateway/callback", callback).contains("duplicate notification n-1"));
        String second = post(
                "/gateway/callback",
                "{\"orderId\": 1, \"gatewayTransactionId\": \"gw-1\", \"notificationId\": \"n-2\"}");
        assertTrue(second.contains("\"ACKNOWLEDGED\"") && second.contains("AlreadyInTarget"), second);

        assertEquals(1L, count("SELECT COUNT(*) FROM payment_ledger WHERE order_id = 1"));
        assertEquals(1L, count("SELECT COUNT(*) FROM baton_outbox WHERE topic = 'payment.paid'"));
        assertEquals(2L, count("SELECT COUNT(*) FROM baton_inbox WHERE message_id IN ('n-1', 'n-2')"));

        // the timer job pushes the paid order once; the dispatcher delivers the message once
        await(() -> count("SELECT COUNT(*) FROM orders WHERE id = 1 AND sync_status = 2") == 1);
        assertEquals(1, app.getBean(ThirdParty.class).created());
        await(() -> app.getBean(Broker.class).delivered().size() == 1);
        assertEquals(
                "{\"orderId\":1}", app.getBean(Broker.class).delivered().get(0).payloadText());

        String health = get("/actuator/health");
        assertTrue(health.contains("\"baton\"") && health.contains("order-sync"), health);
        // baton-micrometer on the class path: the starter registers Baton's meters; one duplicate payment above
        String duplicates = get("/actuator/metrics/baton.transitions?tag=result:already_in_target");
        assertTrue(duplicates.contains("\"value\":1.0"), duplicates);
    }

    @Test
    void theSweepExpiresAnUnpaidOrderAndALateCallbackIsRefunded() throws Exception {
        post("/orders", "{\"orderId\": 2, \"amountCents\": 500}");
        jdbc.sql(ageOrderSql()).param(2).update();
        assertTrue(app.getBean(Payments.class).expireUnpaid() >= 1);
        String late = post(
                "/gateway/callback",
                "{\"orderId\": 2, \"gatewayTransactionId\": \"gw-2\", \"notificationId\": \"n-3\"}");
        assertTrue(late.contains("\"REFUND\""), late);
        assertEquals(0L, count("SELECT COUNT(*) FROM payment_ledger WHERE order_id = 2"));
    }

    private long count(String sql) {
        return jdbc.sql(sql).query(Long.class).single();
    }

    private String post(String path, String json) throws Exception {
        HttpResponse<String> r = http.send(
                HttpRequest.newBuilder(URI.create(base + path))
                        .header("Content-Type", "application/json")
                        .POST(HttpRequest.BodyPublishers.ofString(json))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
        assertEquals(200, r.statusCode(), r.body());
        return r.body();
    }

    private String get(String path) throws Exception {
        return http.send(HttpRequest.newBuilder(URI.create(base + path)).build(), HttpResponse.BodyHandlers.ofString())
                .body();
    }

    private static void await(BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + 30_000_000_000L;
        while (!condition.getAsBoolean()) {
            assertTrue(System.nanoTime() < deadline, "not within 30 s");
            Thread.sleep(50);
        }
    }
}
