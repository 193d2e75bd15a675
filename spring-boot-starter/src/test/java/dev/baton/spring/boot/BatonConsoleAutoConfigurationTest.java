package dev.baton.spring.boot;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.baton.console.BatonConsole;
import dev.baton.console.ConsoleAuthenticator;
import dev.baton.console.ConsoleUser;
import dev.baton.testservers.TestDatabase;
import dev.baton.testservers.TestServer;
import jakarta.servlet.Filter;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletRequestWrapper;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.security.Principal;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * The console in a servlet application, on the local PostgreSQL: off by default, served under its path when
 * enabled, with the request's principal and roles (a filter sets them here, as Spring Security's request wrapper
 * does), refusing operate mode without Spring Security's filter chain or an authenticator. Spring Security's own
 * auto-configuration is excluded here; {@link BatonConsoleSpringSecurityTest} runs the console behind it.
 */
class BatonConsoleAutoConfigurationTest {
    /** Sets the principal and roles from an {@code X-User} header ("name:ROLE,ROLE"), as a security filter would. */
    @Configuration(proxyBeanMethods = false)
    static class HeaderSecurity {
        @Bean
        Filter headerSecurity() {
            return (request, response, chain) -> {
                String user = ((HttpServletRequest) request).getHeader("X-User");
                if (user == null) {
                    chain.doFilter(request, response);
                    return;
                }
                String name = user.substring(0, user.indexOf(':'));
                List<String> roles =
                        List.of(user.substring(user.indexOf(':') + 1).split(","));
                chain.doFilter(
                        new HttpServletRequestWrapper((HttpServletRequest) request) {
                            @Override
                            public Principal getUserPrincipal() {
                                return () -> name;
                            }

                            @Override
                            public boolean isUserInRole(String role) {
                                return roles.contains(role);
                            }
                        },
                        response);
            };
        }
    }

    /** Spring Security's servlet auto-configuration (its jar is on the test classpath): these tests go without it. */
    static final List<String> NO_SPRING_SECURITY = List.of(
            "org.springframework.boot.security.autoconfigure.web.servlet.ServletWebSecurityAutoConfiguration",
            "org.springframework.boot.security.autoconfigure.web.servlet.SecurityFilterAutoConfiguration",
            "org.springframework.boot.security.autoconfigure.actuate.web.servlet.ManagementWebSecurityAutoConfiguration",
            "org.springframework.boot.security.autoconfigure.UserDetailsServiceAutoConfiguration");

    static ConfigurableApplicationContext start(TestDatabase db, Orders orders, String... properties) {
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
                "spring.autoconfigure.exclude=" + String.join(",", NO_SPRING_SECURITY)));
        props.addAll(List.of(properties));
        return new SpringApplicationBuilder(TestApp.class, HeaderSecurity.class)
                .web(WebApplicationType.SERVLET)
                .properties(props.toArray(String[]::new))
                .run();
    }

    static HttpResponse<String> get(ConfigurableApplicationContext ctx, String path, String user) throws Exception {
        int port = ((WebServerApplicationContext) ctx).getWebServer().getPort();
        HttpRequest.Builder r = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path));
        if (user != null) {
            r.header("X-User", user);
        }
        return HttpClient.newHttpClient().send(r.build(), HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void offByDefaultServedUnderItsPathWhenEnabled() throws Exception {
        TestDatabase db = TestServer.POSTGRES_LOCAL.get();
        try (Orders orders = new Orders(db)) {
            try (ConfigurableApplicationContext ctx = start(db, orders)) {
                assertTrue(ctx.getBeansOfType(BatonConsole.class).isEmpty());
                assertEquals(404, get(ctx, "/baton-console/", "ann:BATON_READ").statusCode());
            }
            try (ConfigurableApplicationContext ctx = start(
                    db,
                    orders,
                    "baton.console.enabled=true",
                    "baton.console.path=/ops/console",
                    "baton.console.read-role=OPS")) {
                assertEquals(401, get(ctx, "/ops/console/", null).statusCode());
                assertEquals(403, get(ctx, "/ops/console/", "eve:BATON_READ").statusCode(), "the role is OPS here");
                HttpResponse<String> page = get(ctx, "/ops/console/", "ann:OPS");
                assertEquals(200, page.statusCode());
                assertTrue(page.body().contains("order-sync"), page.body());
                assertTrue(page.body().contains("outbox:" + orders.outbox), "the outbox's queue is shown too");
                assertTrue(page.body().contains("ann (read only)"));
                assertFalse(page.body().contains("<form"), "read only by default");
            }
        }
    }

    @Test
    void operateModeWithoutSpringSecurityOrAnAuthenticatorDoesNotStart() {
        TestDatabase db = TestServer.POSTGRES_LOCAL.get();
        try (Orders orders = new Orders(db)) {
            Exception e = assertThrows(
                    Exception.class, () -> start(db, orders, "baton.console.enabled=true", "baton.console.operate=true")
                            .close());
            Throwable root = e;
            while (root.getCause() != null) {
                root = root.getCause();
            }
            assertTrue(
                    root.getMessage().contains("needs Spring Security or a ConsoleAuthenticator bean"),
                    root.getMessage());
        }
    }

    /** An authenticator bean: the {@code X-Op} header names an operator. */
    @Configuration(proxyBeanMethods = false)
    static class HeaderOperators {
        @Bean
        ConsoleAuthenticator operators() {
            return request -> {
                String name = request.header("X-Op");
                return name == null ? null : ConsoleUser.operator(name);
            };
        }
    }

    static ConfigurableApplicationContext startOperating(TestDatabase db, Orders orders, String... properties) {
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
                "baton.console.operate=true",
                "spring.autoconfigure.exclude=" + String.join(",", NO_SPRING_SECURITY)));
        props.addAll(List.of(properties));
        return new SpringApplicationBuilder(TestApp.class, HeaderOperators.class)
                .web(WebApplicationType.SERVLET)
                .properties(props.toArray(String[]::new))
                .run();
    }

    /** POSTs an action that gets past the CSRF check only to be refused as unknown (400); 403 if the token is refused. */
    static int postNoSuchAction(ConfigurableApplicationContext ctx, String cookie, String token) throws Exception {
        int port = ((WebServerApplicationContext) ctx).getWebServer().getPort();
        HttpRequest r = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/baton-console/action"))
                .header("X-Op", "olga")
                .header("Cookie", cookie)
                .header("Content-Type", "application/x-www-form-urlencoded")
                .POST(HttpRequest.BodyPublishers.ofString("op=none&q=order-sync&csrf=" + token))
                .build();
        return HttpClient.newHttpClient()
                .send(r, HttpResponse.BodyHandlers.ofString())
                .statusCode();
    }

    @Test
    void theCsrfKeyTheSessionLifetimeAndSecureCookiesComeFromTheProperties() throws Exception {
        TestDatabase db = TestServer.POSTGRES_LOCAL.get();
        String key = "baton.console.csrf-key=one-key-for-every-instance-0123456789";
        try (Orders orders = new Orders(db);
                ConfigurableApplicationContext a = startOperating(
                        db, orders, key, "baton.console.session-lifetime=30m", "baton.console.secure-cookie=true");
                ConfigurableApplicationContext b = startOperating(db, orders, key);
                ConfigurableApplicationContext keyless = startOperating(db, orders)) {
            int port = ((WebServerApplicationContext) a).getWebServer().getPort();
            HttpResponse<String> page = HttpClient.newHttpClient()
                    .send(
                            HttpRequest.newBuilder(URI.create(
                                            "http://127.0.0.1:" + port + "/baton-console/queue?q=order-sync"))
                                    .header("X-Op", "olga")
                                    .build(),
                            HttpResponse.BodyHandlers.ofString());
            assertEquals(200, page.statusCode(), page.body());
            String setCookie = page.headers().firstValue("Set-Cookie").orElseThrow();
            assertTrue(setCookie.contains("; Max-Age=1800") && setCookie.endsWith("; Secure"), setCookie);
            String cookie = setCookie.substring(0, setCookie.indexOf(';'));
            java.util.regex.Matcher m = java.util.regex.Pattern.compile("name=\"csrf\" value=\"([^\"]+)\"")
                    .matcher(page.body());
            assertTrue(m.find(), page.body());
            String token = m.group(1);
            assertEquals(400, postNoSuchAction(a, cookie, token), "its own token");
            assertEquals(400, postNoSuchAction(b, cookie, token), "another instance with the same key");
            assertEquals(403, postNoSuchAction(keyless, cookie, token), "an instance without the key");
            HttpResponse<String> plain = get(b, "/baton-console/", null);
            assertEquals(401, plain.statusCode());
        }
    }
}
