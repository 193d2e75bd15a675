package dev.baton.examples.spring;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.jdbc.core.simple.JdbcClient;

/**
 * The example as its README command starts it (embedded PostgreSQL, no data source configured), on a real port, with
 * the console on and the ops user's password given: duplicate callbacks, the timer job, the sweep and a late
 * callback; the Actuator endpoints but health, and the console, for the ops user only.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class PaymentApplicationTest {
    private static final String OPS_PASSWORD = "ops-test-password";
    private static final String OPS =
            "Basic " + Base64.getEncoder().encodeToString(("ops:" + OPS_PASSWORD).getBytes(StandardCharsets.UTF_8));

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
        List<String> args = new ArrayList<>(List.of(
                "--server.port=0",
                "--payments.expiry-sweep-interval=PT1H",
                "--spring.main.banner-mode=off",
                "--baton.console.enabled=true",
                "--spring.security.user.password=" + OPS_PASSWORD));
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
        String duplicates = get("/actuator/metrics/baton.transitions?tag=result:already_in_target", OPS)
                .body();
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

    @Test
    void theBatonEndpointAndTheConsoleAreForTheOpsUserOnly() throws Exception {
        String error = "receiver 400: card 4111 1111 1111 1111 of jane.doe@example.com declined";
        jdbc.sql("INSERT INTO orders (id, amount_cents, sync_status, attempts, last_error) VALUES (901, 100, 3, 5, ?)")
                .param(error)
                .update();
        for (String path : List.of("/actuator/baton/order-sync", "/actuator/baton", "/baton-console/")) {
            for (String wrong : new String[] {
                null, "Basic " + Base64.getEncoder().encodeToString("ops:guess".getBytes(StandardCharsets.UTF_8))
            }) {
                HttpResponse<String> r = get(path, wrong);
                assertEquals(401, r.statusCode(), path + ": " + r.body());
                assertFalse(r.body().contains("4111"), path + ": " + r.body());
                assertFalse(r.body().contains("jane.doe"), path + ": " + r.body());
                assertFalse(r.body().contains("eligible"), "no counts either: " + r.body());
            }
        }
        // the ops user sees the dead row's error, through the endpoint and the console
        HttpResponse<String> endpoint = get("/actuator/baton/order-sync", OPS);
        assertEquals(200, endpoint.statusCode(), endpoint.body());
        assertTrue(endpoint.body().contains(error), endpoint.body());
        HttpResponse<String> console = get("/baton-console/queue?q=order-sync", OPS);
        assertEquals(200, console.statusCode(), console.body());
        assertTrue(console.body().contains("jane.doe@example.com"), console.body());
        assertTrue(console.body().contains("name=\"csrf\""), "the ops user may operate: " + console.body());
        // health stays open for the load balancer, without rows
        HttpResponse<String> health = get("/actuator/health", null);
        assertEquals(200, health.statusCode(), health.body());
        assertFalse(health.body().contains("4111"), health.body());
        jdbc.sql("DELETE FROM orders WHERE id = 901").update();
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
        return get(path, null).body();
    }

    private HttpResponse<String> get(String path, String authorization) throws Exception {
        HttpRequest.Builder r = HttpRequest.newBuilder(URI.create(base + path));
        if (authorization != null) {
            r.header("Authorization", authorization);
        }
        return http.send(r.build(), HttpResponse.BodyHandlers.ofString());
    }

    private static void await(BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + 30_000_000_000L;
        while (!condition.getAsBoolean()) {
            assertTrue(System.nanoTime() < deadline, "not within 30 s");
            Thread.sleep(50);
        }
    }
}
