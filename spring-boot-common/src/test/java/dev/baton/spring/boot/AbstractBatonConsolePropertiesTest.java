package dev.baton.spring.boot;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.baton.ConfigurationException;
import dev.baton.console.BatonConsole;
import dev.baton.console.ConsoleAuthenticator;
import dev.baton.console.ConsoleRequest;
import dev.baton.console.ConsoleResponse;
import dev.baton.console.ConsoleUser;
import dev.baton.testservers.TestDatabase;
import dev.baton.testservers.TestDatabases;
import dev.baton.testservers.TestServer;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * The console's settings under {@code baton.console.*} reach the console in a servlet application, on the local
 * PostgreSQL: page size, requeue bound, sampling, the attention threshold, the refresh interval, the audit table, the
 * time-of-death and reference columns; a value out of bounds stops the start with the console's message. Each starter
 * extends it, adding the properties its Boot version needs; the console is asked through its bean, as the servlet
 * asks it.
 */
public abstract class AbstractBatonConsolePropertiesTest {
    /** Everyone is an operator here: the settings are under test, not the users. */
    @Configuration(proxyBeanMethods = false)
    static class Operators {
        @Bean
        ConsoleAuthenticator operators() {
            return request -> ConsoleUser.operator("ann");
        }
    }

    /** More properties for this starter's context (auto-configurations to leave out), none by default. */
    protected List<String> moreProperties() {
        return List.of();
    }

    ConfigurableApplicationContext start(TestDatabase db, Orders orders, String... properties) {
        List<String> props = new ArrayList<>(List.of(
                "spring.datasource.url=" + db.jdbcUrl(),
                "spring.datasource.username=" + db.user(),
                "spring.datasource.password=" + (db.password() == null ? "" : db.password()),
                "spring.main.banner-mode=off",
                "server.port=0",
                "server.address=127.0.0.1",
                "baton.own-tables.create=true",
                "baton.own-tables.outbox=" + orders.outbox,
                "test.orders=" + orders.table,
                "test.outbox=" + orders.outbox,
                "baton.console.enabled=true"));
        props.addAll(moreProperties());
        props.addAll(List.of(properties));
        return new SpringApplicationBuilder(TestApp.class, Operators.class)
                .web(WebApplicationType.SERVLET)
                .properties(props.toArray(String[]::new))
                .run();
    }

    static ConsoleResponse get(BatonConsole console, String path, Map<String, String> params) {
        return console.handle(new ConsoleRequest("GET", "/baton-console/", path, Map.of(), params, null));
    }

    @Test
    void everySettingReachesTheConsole() throws Exception {
        TestDatabase db = TestServer.POSTGRES_LOCAL.get();
        String audit = TestDatabases.uniqueName("console_audit");
        try (Orders orders = new Orders(db);
                ConfigurableApplicationContext ctx = start(
                        db,
                        orders,
                        "baton.console.operate=true",
                        "baton.console.page-size=7",
                        "baton.console.max-requeue=3",
                        "baton.console.sample-interval=2s",
                        "baton.console.samples=5",
                        "baton.console.attention-age=1h",
                        "baton.console.refresh=30s",
                        "baton.console.audit-table=" + audit,
                        "baton.console.dead-at-columns.order-sync=paid_at")) {
            BatonConsole console = ctx.getBean(BatonConsole.class);
            console.sample(); // the console's first sample may have run before the outbox table was created
            String overview = get(console, "", Map.of()).body();
            assertTrue(overview.contains("<meta http-equiv=\"refresh\" content=\"30\">"), overview);
            assertTrue(overview.contains("no eligible row older than 60 min"), overview);
            assertTrue(overview.contains("taken every 2 s"), overview);
            String queue = get(console, "queue", Map.of("q", "order-sync")).body();
            assertTrue(queue.contains("name=\"n\" min=\"1\" max=\"3\""), "max-requeue: " + queue);
            assertTrue(queue.contains("name=\"from\""), "dead-at-columns: the time-of-death search: " + queue);
            // the audit table was created, and a refused action is written to it
            ConsoleResponse refused = console.handle(new ConsoleRequest(
                    "POST",
                    "/baton-console/",
                    "action",
                    Map.of(),
                    Map.of("op", "requeue", "q", "order-sync", "id", "l1"),
                    null));
            assertEquals(403, refused.status(), refused.body());
            try (Connection c = db.connect();
                    Statement s = c.createStatement();
                    ResultSet rs = s.executeQuery("SELECT outcome FROM " + audit)) {
                assertTrue(rs.next(), "no audit row");
                assertEquals("refused", rs.getString(1));
            }
        } finally {
            db.dropTableIfExists(audit);
        }
    }

    @Test
    void theConsolesBoundsStopTheStart() {
        TestDatabase db = TestServer.POSTGRES_LOCAL.get();
        try (Orders orders = new Orders(db)) {
            for (List<String> bad : List.of(
                    List.of("baton.console.attention-age=5s", "attentionAge must be 10 seconds to 7 days"),
                    List.of("baton.console.refresh=4s", "refresh must be 0 (off) or 5 to 300 whole seconds"),
                    List.of("baton.console.page-size=0", "pageSize must be 1..500"),
                    List.of(
                            "baton.console.reference-columns.order-sync=third_party_guid",
                            "referenceColumn names queue 'order-sync', which has no unknown sends"))) {
                try (ConfigurableApplicationContext ctx = start(db, orders, bad.get(0))) {
                    fail("started with " + bad.get(0) + ": " + ctx.getId());
                } catch (RuntimeException e) {
                    Throwable root = e;
                    while (root.getCause() != null && !(root instanceof ConfigurationException)) {
                        root = root.getCause();
                    }
                    assertTrue(root instanceof ConfigurationException, bad.get(0) + ": " + e);
                    assertTrue(root.getMessage().startsWith(bad.get(1)), root.getMessage());
                }
            }
        }
    }
}
