package dev.baton.spring.boot;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.baton.spring.boot.Orders.Pay;
import dev.baton.spring.boot.Orders.Sync;
import dev.baton.testservers.TestDatabase;
import dev.baton.testservers.TestServer;
import jakarta.servlet.DispatcherType;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;
import org.springframework.security.config.Customizer;
import org.springframework.security.config.annotation.web.builders.HttpSecurity;
import org.springframework.security.core.userdetails.User;
import org.springframework.security.core.userdetails.UserDetailsService;
import org.springframework.security.provisioning.InMemoryUserDetailsManager;
import org.springframework.security.web.SecurityFilterChain;

/**
 * The console behind a real Spring Security filter chain (HTTP Basic, in-memory users), on the local PostgreSQL: the
 * roles come from Spring Security through the servlet request, anonymous requests get nothing, a reader sees but cannot
 * act, an operator acts with the console's CSRF token. The console's path is left out of Spring Security's CSRF
 * filter, as {@code docs/src/console.md} says; without that, Spring's filter refuses the console's forms.
 */
class BatonConsoleSpringSecurityTest {
    private static final Pattern CSRF = Pattern.compile("name=\"csrf\" value=\"([^\"]+)\"");
    private static final String PATH = "/ops/console/";

    /** The application's security: every request authenticated, HTTP Basic, Spring's CSRF filter on. */
    @Configuration(proxyBeanMethods = false)
    static class Security {
        @Bean
        SecurityFilterChain security(HttpSecurity http, Environment env) throws Exception {
            // the error page (Spring Security's 401 and 403 go there) is open, so each refusal keeps its status
            http.authorizeHttpRequests(a -> a.dispatcherTypeMatchers(DispatcherType.ERROR)
                            .permitAll()
                            .anyRequest()
                            .authenticated())
                    .httpBasic(Customizer.withDefaults());
            if (!env.getProperty("test.spring-csrf-on-console", Boolean.class, false)) {
                // the console checks its own token on every action
                http.csrf(c -> c.ignoringRequestMatchers(r -> r.getRequestURI().startsWith(PATH)));
            }
            return http.build();
        }

        @Bean
        UserDetailsService users() {
            return new InMemoryUserDetailsManager(
                    User.withUsername("ann")
                            .password("{noop}ann-pw")
                            .roles("OPS_READ")
                            .build(),
                    User.withUsername("olga")
                            .password("{noop}olga-pw")
                            .roles("OPS_READ", "OPS_ACT")
                            .build(),
                    User.withUsername("bob")
                            .password("{noop}bob-pw")
                            .roles("SALES")
                            .build());
        }
    }

    private static ConfigurableApplicationContext start(TestDatabase db, Orders orders, String... more) {
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
                "baton.console.enabled=true",
                "baton.console.path=/ops/console",
                "baton.console.operate=true",
                "baton.console.read-role=OPS_READ",
                "baton.console.operate-role=OPS_ACT"));
        props.addAll(List.of(more));
        return new SpringApplicationBuilder(TestApp.class, Security.class)
                .web(WebApplicationType.SERVLET)
                .properties(props.toArray(String[]::new))
                .run();
    }

    /** One browser: its own cookies, signed in as {@code user} (HTTP Basic) or anonymous when null. */
    private record Browser(HttpClient http, String base, String user) {
        static Browser of(ConfigurableApplicationContext ctx, String user) {
            int port = ((WebServerApplicationContext) ctx).getWebServer().getPort();
            HttpClient http = HttpClient.newBuilder()
                    .cookieHandler(new java.net.CookieManager())
                    .build();
            return new Browser(http, "http://127.0.0.1:" + port + PATH, user);
        }

        HttpRequest.Builder request(String path) {
            HttpRequest.Builder r =
                    HttpRequest.newBuilder(URI.create(base + path)).timeout(java.time.Duration.ofSeconds(20));
            if (user != null) {
                String basic = user + ":" + user + "-pw";
                r.header(
                        "Authorization",
                        "Basic " + Base64.getEncoder().encodeToString(basic.getBytes(StandardCharsets.UTF_8)));
            }
            return r;
        }

        HttpResponse<String> get(String path) throws Exception {
            return http.send(request(path).build(), HttpResponse.BodyHandlers.ofString());
        }

        HttpResponse<String> post(String path, Map<String, String> form) throws Exception {
            String body = form.entrySet().stream()
                    .map(e -> URLEncoder.encode(e.getKey(), StandardCharsets.UTF_8) + "="
                            + URLEncoder.encode(e.getValue(), StandardCharsets.UTF_8))
                    .collect(Collectors.joining("&"));
            return http.send(
                    request(path)
                            .header("Content-Type", "application/x-www-form-urlencoded")
                            .POST(HttpRequest.BodyPublishers.ofString(body))
                            .build(),
                    HttpResponse.BodyHandlers.ofString());
        }

        /**
         * Posts {@code form} without {@code confirm}, then the confirmation page's form as it is, and follows a 303 to
         * the result page: what a browser does.
         */
        HttpResponse<String> act(Map<String, String> form) throws Exception {
            Map<String, String> f = new LinkedHashMap<>(form);
            f.remove("confirm");
            HttpResponse<String> confirm = post("action", f);
            assertEquals(200, confirm.statusCode(), confirm.body());
            Map<String, String> fields = new LinkedHashMap<>();
            Matcher m = Pattern.compile("<input type=\"hidden\" name=\"([^\"]*)\" value=\"([^\"]*)\">")
                    .matcher(confirm.body().substring(confirm.body().indexOf("confirm-text")));
            while (m.find()) {
                fields.put(m.group(1), m.group(2).replace("&amp;", "&"));
            }
            HttpResponse<String> r = post("action", fields);
            if (r.statusCode() == 303) {
                return get(r.headers().firstValue("Location").orElseThrow());
            }
            return r;
        }

        /** The console's CSRF token, read from the queue page (empty when the page shows no form). */
        String token() throws Exception {
            HttpResponse<String> page = get("queue?q=order-sync");
            assertEquals(200, page.statusCode(), page.body());
            Matcher m = CSRF.matcher(page.body());
            return m.find() ? m.group(1) : "";
        }
    }

    private static Map<String, String> requeue(long id, String token) {
        Map<String, String> form = new LinkedHashMap<>();
        form.put("op", "requeue");
        form.put("q", "order-sync");
        form.put("id", "l" + id);
        form.put("confirm", "yes");
        form.put("csrf", token);
        return form;
    }

    private static void insertDead(Orders orders, long id) {
        orders.insert(id, Pay.PAID);
        orders.db.execute("UPDATE " + orders.table + " SET sync_status = " + Sync.FAILED.ordinal()
                + ", attempts = 5, last_error = 'gave up' WHERE id = " + id);
    }

    private static long syncState(Orders orders, long id) {
        for (Sync s : Sync.values()) {
            if (orders.count("id = " + id + " AND sync_status = " + s.ordinal()) == 1) {
                return s.ordinal();
            }
        }
        throw new AssertionError("no row " + id);
    }

    @Test
    void springSecuritySaysWhoMaySeeAndWhoMayAct() throws Exception {
        TestDatabase db = TestServer.POSTGRES_LOCAL.get();
        try (Orders orders = new Orders(db)) {
            insertDead(orders, 7);
            try (ConfigurableApplicationContext ctx = start(db, orders)) {
                HttpResponse<String> anonymous = Browser.of(ctx, null).get("");
                assertEquals(401, anonymous.statusCode(), "Spring Security answers an anonymous request");
                assertFalse(anonymous.body().contains("order-sync"), anonymous.body());
                assertTrue(anonymous.headers().allValues("Set-Cookie").stream()
                        .noneMatch(c -> c.startsWith("baton_console")));

                Browser bob = Browser.of(ctx, "bob");
                HttpResponse<String> stranger = bob.get("");
                assertEquals(403, stranger.statusCode(), "signed in, but without the read role");
                assertFalse(stranger.body().contains("order-sync"), stranger.body());

                Browser ann = Browser.of(ctx, "ann");
                HttpResponse<String> page = ann.get("");
                assertEquals(200, page.statusCode(), page.body());
                assertTrue(page.body().contains("order-sync"), page.body());
                assertTrue(page.body().contains("ann (read only)"), page.body());
                assertEquals("", ann.token(), "no form, no token for a reader");
                Browser olga = Browser.of(ctx, "olga");
                String olgasToken = olga.token();
                assertFalse(olgasToken.isEmpty(), "an operator's page carries the console's token");
                assertEquals(403, ann.post("action", requeue(7, olgasToken)).statusCode(), "a reader cannot act");
                assertEquals(Sync.FAILED.ordinal(), syncState(orders, 7));

                assertEquals(403, olga.post("action", requeue(7, "")).statusCode(), "no console token");
                assertEquals(
                        403,
                        Browser.of(ctx, "olga")
                                .post("action", requeue(7, olgasToken))
                                .statusCode(),
                        "the token of another session (another cookie jar)");
                assertEquals(Sync.FAILED.ordinal(), syncState(orders, 7));
                HttpResponse<String> done = olga.act(requeue(7, olgasToken));
                assertEquals(200, done.statusCode(), done.body());
                assertTrue(done.body().contains("Requeued: dead row 7"), done.body());
                assertEquals(Sync.PENDING.ordinal(), syncState(orders, 7), "requeued once");
                assertTrue(ctx.getBean(dev.baton.console.BatonConsole.class).recentActions().stream()
                        .anyMatch(
                                a -> a.principal().equals("olga") && a.action().equals("requeue")));
            }
        }
    }

    @Test
    void aMistypedOrHugeRowIdIsA400ThroughTheStarter() throws Exception {
        TestDatabase db = TestServer.POSTGRES_LOCAL.get();
        try (Orders orders = new Orders(db)) {
            insertDead(orders, 9);
            try (ConfigurableApplicationContext ctx = start(db, orders)) {
                Browser ann = Browser.of(ctx, "ann");
                // a string id on a BIGINT queue (a type error in the database: 500 before), and a decimal whose
                // plain text has a billion digits (an OutOfMemoryError in the host before)
                for (String id : List.of("sabc", "d1e999999999", "l99999999999999999999")) {
                    for (String param : List.of("dead", "unknown")) {
                        HttpResponse<String> r = ann.get("queue?q=order-sync&" + param + "=" + id);
                        assertEquals(400, r.statusCode(), param + "=" + id + ": " + r.body());
                        assertTrue(r.body().contains("Not a row id of this queue"), r.body());
                    }
                }
                assertEquals(200, ann.get("queue?q=order-sync").statusCode(), "the host still answers");
                Browser olga = Browser.of(ctx, "olga");
                Map<String, String> requeue = requeue(9, olga.token());
                requeue.put("id", "d1e999999999");
                assertEquals(400, olga.post("action", requeue).statusCode());
                assertEquals(Sync.FAILED.ordinal(), syncState(orders, 9));
            }
        }
    }

    @Test
    void springsCsrfFilterRefusesTheConsolesFormsUnlessThePathIsLeftOut() throws Exception {
        TestDatabase db = TestServer.POSTGRES_LOCAL.get();
        try (Orders orders = new Orders(db)) {
            insertDead(orders, 8);
            try (ConfigurableApplicationContext ctx = start(db, orders, "test.spring-csrf-on-console=true")) {
                Browser olga = Browser.of(ctx, "olga");
                String token = olga.token();
                HttpResponse<String> refused = olga.post("action", requeue(8, token));
                assertEquals(403, refused.statusCode(), refused.body());
                assertFalse(refused.body().contains("CSRF token; reload"), "Spring's filter, not the console");
                assertEquals(Sync.FAILED.ordinal(), syncState(orders, 8), "the row stays dead");
            }
        }
    }
}
