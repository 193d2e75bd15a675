package dev.baton.console;

import static dev.baton.console.ConsoleHttpTest.confirmation;
import static dev.baton.console.ConsoleHttpTest.form;
import static dev.baton.console.ConsoleHttpTest.result;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.net.httpserver.HttpServer;
import dev.baton.Baton;
import dev.baton.ConfigurationException;
import dev.baton.console.ConsoleHttpTest.Client;
import dev.baton.console.internal.Csrf;
import dev.baton.testkit.DatabaseSuite;
import dev.baton.testkit.compat.Sync;
import dev.baton.testservers.TestServer;
import java.net.CookieManager;
import java.net.HttpCookie;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.http.HttpClient;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Two instances of one deployment: two consoles, each on its own JDK server and its own {@link Baton}, over one queue
 * table, and one browser (one cookie jar) whose requests a load balancer without sticky sessions sends to either. With
 * one configured CSRF key a token of one instance is good on the other and after a restart; without a key it is good
 * in its own process only (as before the key existed). Confirmations stay with the process that showed them. Tokens
 * expire; the session cookie has a lifetime and is {@code Secure} over TLS or when configured.
 */
@ParameterizedClass(name = "{0}")
@EnumSource(
        value = TestServer.class,
        names = {"POSTGRES_LOCAL", "MARIADB_LOCAL"})
class ConsoleInstancesTest {
    @Parameter
    TestServer server;

    static final String KEY = "k3y-of-the-whole-deployment-0123456789";

    @Nested
    class Instances extends DatabaseSuite {
        private ConsoleFixture a;
        private final List<AutoCloseable> others = new ArrayList<>();
        private final CookieManager cookies = new CookieManager();
        private final HttpClient browser = HttpClient.newBuilder()
                .cookieHandler(cookies)
                .connectTimeout(Duration.ofSeconds(5))
                .followRedirects(HttpClient.Redirect.NEVER)
                .build();

        @AfterEach
        void close() throws Exception {
            for (AutoCloseable c : others) {
                c.close();
            }
            others.clear();
            if (a != null) {
                a.close();
                a = null;
            }
        }

        /** Instance A: the fixture's console and server; the rows seeded. */
        private ConsoleFixture first(String key) {
            a = new ConsoleFixture(database(), "cn2_instances", true, 50, b -> {
                if (key != null) {
                    b.csrfKey(key);
                }
            });
            a.seed(5);
            return a;
        }

        /** Another instance over A's table: its own Baton, console and JDK server; its base URL. */
        private String another(String key) throws Exception {
            BatonConsole.Builder b = BatonConsole.builder()
                    .queue(ConsoleFixture.queue(Baton.using(database().dataSource()), a.table))
                    .authenticator(ConsoleFixture::authenticate)
                    .operate(true);
            if (key != null) {
                b.csrfKey(key);
            }
            BatonConsole console = b.build();
            HttpServer http = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
            http.createContext("/ops/baton/", console.httpHandler());
            http.start();
            others.add(() -> {
                http.stop(0);
                console.close();
            });
            return "http://127.0.0.1:" + http.getAddress().getPort() + "/ops/baton/";
        }

        private String session() {
            return cookies.getCookieStore().getCookies().stream()
                    .filter(c -> c.getName().equals("baton_console"))
                    .map(HttpCookie::getValue)
                    .findFirst()
                    .orElseThrow();
        }

        @Test
        void withOneKeyATokenOfOneInstanceIsGoodOnTheOther() throws Exception {
            first(KEY);
            Client onA = new Client(browser, a.base(), "operator");
            Client onB = new Client(browser, another(KEY), "operator");
            String token = onA.token(a.queue.name());

            // the form served by A, posted to B: B shows the confirmation, and its confirmation runs there
            HttpResponse<String> confirm =
                    onB.post("action", form("op", "requeue", "q", a.queue.name(), "id", "sd-003", "csrf", token));
            assertEquals(200, confirm.statusCode(), confirm.body());
            HttpResponse<String> done = onB.submit(confirmation(confirm.body()));
            assertEquals(200, done.statusCode(), done.body());
            assertTrue(result(done.body()).startsWith("Requeued"), done.body());
            assertEquals(Sync.PENDING, a.state("d-003"));

            // a confirmation is kept by the process that showed it: B's, confirmed on A, runs nothing (400, says so)
            Map<String, String> shownByB = confirmation(
                    onB.post("action", form("op", "requeue", "q", a.queue.name(), "id", "sd-004", "csrf", token))
                            .body());
            HttpResponse<String> elsewhere = onA.post("action", shownByB);
            assertEquals(400, elsewhere.statusCode(), elsewhere.body());
            assertTrue(elsewhere.body().contains("nothing was done"), elsewhere.body());
            assertEquals(Sync.FAILED, a.state("d-004"));

            // after a deploy (a new process with the same key) the open page's token still works
            Client onC = new Client(browser, another(KEY), "operator");
            HttpResponse<String> afterDeploy =
                    onC.act(form("op", "requeue", "q", a.queue.name(), "id", "sd-004", "csrf", token));
            assertTrue(result(afterDeploy.body()).startsWith("Requeued"), afterDeploy.body());
            assertEquals(Sync.PENDING, a.state("d-004"));

            // another deployment's key is another key
            Client onD = new Client(browser, another(KEY.replace('k', 'K')), "operator");
            assertEquals(
                    403,
                    onD.post("action", form("op", "requeue", "q", a.queue.name(), "id", "sd-005", "csrf", token))
                            .statusCode());
            assertEquals(Sync.FAILED, a.state("d-005"));
        }

        @Test
        void withoutAKeyATokenIsGoodInItsOwnProcessOnly() throws Exception {
            first(null);
            Client onA = new Client(browser, a.base(), "operator");
            Client onB = new Client(browser, another(null), "operator");
            String token = onA.token(a.queue.name());
            HttpResponse<String> r =
                    onB.post("action", form("op", "requeue", "q", a.queue.name(), "id", "sd-003", "csrf", token));
            assertEquals(403, r.statusCode(), r.body());
            assertEquals(Sync.FAILED, a.state("d-003"));
            // on its own instance the token works
            assertTrue(result(onA.act(form("op", "requeue", "q", a.queue.name(), "id", "sd-003", "csrf", token))
                            .body())
                    .startsWith("Requeued"));
        }

        @Test
        void anExpiredTokenIsRefused() throws Exception {
            first(KEY);
            Client onA = new Client(browser, a.base(), "operator");
            Client onB = new Client(browser, another(KEY), "operator");
            String served = onA.token(a.queue.name());
            long expiry = Long.parseLong(served.substring(0, served.indexOf('.')), 36);
            long now = Instant.now().getEpochSecond();
            assertTrue(expiry > now + Duration.ofHours(11).toSeconds(), "good for 12 hours: " + served);

            // the same key, session and user, expired a second ago
            Csrf csrf = new Csrf(KEY.getBytes(StandardCharsets.UTF_8), Duration.ofHours(12));
            String expired = csrf.tokenUntil(session(), "alice-operator", now - 1);
            // a served token whose expiry was pushed later by hand
            String stretched = Long.toString(expiry + 86_400, 36) + served.substring(served.indexOf('.'));
            for (String token : List.of(expired, stretched)) {
                for (Client c : List.of(onA, onB)) {
                    HttpResponse<String> r =
                            c.post("action", form("op", "requeue", "q", a.queue.name(), "id", "sd-003", "csrf", token));
                    assertEquals(403, r.statusCode(), token + ": " + r.body());
                    assertTrue(r.body().contains("expired"), r.body());
                }
            }
            assertEquals(Sync.FAILED, a.state("d-003"));
            // the same token, not expired yet, is good: the refusal above was the expiry's
            String fresh = csrf.tokenUntil(session(), "alice-operator", now + 60);
            assertEquals(
                    200,
                    onB.post("action", form("op", "requeue", "q", a.queue.name(), "id", "sd-003", "csrf", fresh))
                            .statusCode());
        }

        @Test
        void theSessionCookieHasALifetimeAndIsSecureOverTlsOrWhenConfigured() throws Exception {
            first(null);
            HttpResponse<String> plain = new Client(a.base(), "operator").get("");
            String cookie = plain.headers().firstValue("Set-Cookie").orElseThrow();
            assertTrue(cookie.contains("; Max-Age=43200"), cookie);
            assertTrue(cookie.contains("HttpOnly") && cookie.contains("SameSite=Strict"), cookie);
            assertFalse(cookie.contains("Secure"), "plain HTTP: " + cookie);

            ConsoleRequest overTls = new ConsoleRequest(
                    "GET", "/ops/baton/", "", Map.of("X-Test-User", List.of("operator")), Map.of(), null, true);
            assertTrue(a.console.handle(overTls).headers().get("Set-Cookie").endsWith("; Secure"));

            try (BatonConsole always = BatonConsole.builder()
                    .queue(a.queue)
                    .authenticator(ConsoleFixture::authenticate)
                    .secureCookie(true)
                    .sessionLifetime(Duration.ofMinutes(30))
                    .build()) {
                ConsoleRequest behindAProxy = new ConsoleRequest(
                        "GET", "/ops/baton/", "", Map.of("X-Test-User", List.of("reader")), Map.of(), null);
                String c = always.handle(behindAProxy).headers().get("Set-Cookie");
                assertTrue(c.contains("; Max-Age=1800") && c.endsWith("; Secure"), c);
            }
        }

        @Test
        void aShortKeyOrALifetimeOutOfRangeIsRefusedAtBuild() {
            first(null);
            assertThrows(
                    ConfigurationException.class, () -> BatonConsole.builder().csrfKey("short"));
            assertThrows(
                    ConfigurationException.class, () -> BatonConsole.builder().sessionLifetime(Duration.ofSeconds(5)));
            assertThrows(
                    ConfigurationException.class, () -> BatonConsole.builder().sessionLifetime(Duration.ofDays(8)));
        }
    }
}
