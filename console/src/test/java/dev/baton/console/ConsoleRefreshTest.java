package dev.baton.console;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.baton.ConfigurationException;
import dev.baton.testkit.DatabaseSuite;
import dev.baton.testkit.compat.Sync;
import dev.baton.testservers.TestServer;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The overview and a queue's page reload themselves by a meta refresh (no script), off by default or at the
 * console's interval, per request with {@code refresh}, kept in the links; never a confirmation or a result page.
 */
@ParameterizedClass(name = "{0}")
@EnumSource(
        value = TestServer.class,
        names = {"POSTGRES_LOCAL", "MARIADB_LOCAL"})
class ConsoleRefreshTest {
    @Parameter
    TestServer server;

    static final String META = "<meta http-equiv=\"refresh\"";

    @Nested
    class Pages extends DatabaseSuite {
        private ConsoleFixture f;

        @AfterEach
        void close() {
            if (f != null) {
                f.close();
                f = null;
            }
        }

        private ConsoleFixture open(java.util.function.Consumer<BatonConsole.Builder> more) {
            f = new ConsoleFixture(database(), true, 2, more);
            f.seed(6);
            f.console.sample();
            return f;
        }

        @Test
        void offByDefaultAndAskedForPerRequestKeptInTheLinks() throws Exception {
            open(b -> {});
            ConsoleHttpTest.Client reader = new ConsoleHttpTest.Client(f.base(), "reader");
            String overview = reader.get("").body();
            assertFalse(overview.contains(META), "no refresh by default");
            assertTrue(overview.contains("This page does not refresh itself"), overview);
            assertTrue(overview.contains("href=\"./?refresh=30\""), overview);

            overview = reader.get("?refresh=30").body();
            assertTrue(overview.contains(META + " content=\"30\">"), overview);
            assertTrue(overview.contains("This page refreshes itself every 30 s"), overview);
            assertTrue(overview.contains("href=\"queue?q=" + f.queue.name() + "&amp;refresh=30\""), overview);
            assertTrue(overview.contains("href=\"./?refresh=30\">Overview</a>"), overview);
            assertTrue(overview.contains("href=\"./?refresh=0\">stop refreshing</a>"), overview);

            String queue =
                    reader.get("queue?q=" + f.queue.name() + "&refresh=5").body();
            assertTrue(queue.contains(META + " content=\"5\">"), queue);
            // the next page of dead letters, the search form and the way back keep it
            assertTrue(queue.contains("&amp;refresh=5&amp;dead="), queue);
            assertTrue(queue.contains("<input type=\"hidden\" name=\"refresh\" value=\"5\">"), queue);
            assertTrue(queue.contains("href=\"./?refresh=5\">Overview</a>"), queue);
            String next = reader.get("queue?q=" + f.queue.name() + "&refresh=5&dead=sd-003")
                    .body();
            assertTrue(next.contains(META + " content=\"5\">"), next);
            assertTrue(
                    next.contains("href=\"queue?dead=sd-003&amp;q=" + f.queue.name() + "&amp;refresh=0\""),
                    "stop refreshing stays on this page: " + next);

            String off = reader.get("queue?q=" + f.queue.name() + "&refresh=0").body();
            assertFalse(off.contains(META), off);
        }

        @Test
        void theConsolesIntervalIsTheDefaultAndZeroTurnsItOff() throws Exception {
            open(b -> b.refresh(Duration.ofSeconds(30)));
            ConsoleHttpTest.Client reader = new ConsoleHttpTest.Client(f.base(), "reader");
            assertTrue(reader.get("").body().contains(META + " content=\"30\">"));
            assertTrue(reader.get("queue?q=" + f.queue.name()).body().contains(META + " content=\"30\">"));
            String off = reader.get("?refresh=0").body();
            assertFalse(off.contains(META), off);
            assertTrue(off.contains("href=\"queue?q=" + f.queue.name() + "&amp;refresh=0\""), off);
            assertTrue(off.contains("href=\"./?refresh=30\">refresh every 30 s</a>"), off);
        }

        @Test
        void aConfirmationOrAResultPageNeverRefreshes() throws Exception {
            open(b -> b.refresh(Duration.ofSeconds(5)));
            ConsoleHttpTest.Client operator = new ConsoleHttpTest.Client(f.base(), "operator");
            String token = operator.token(f.queue.name());
            Map<String, String> requeue = ConsoleHttpTest.form(
                    "op", "requeue", "q", f.queue.name(), "id", "sd-003", "csrf", token, "refresh", "5");
            HttpResponse<String> confirm = operator.post("action", requeue);
            assertEquals(200, confirm.statusCode(), confirm.body());
            assertFalse(confirm.body().contains(META), confirm.body());
            HttpResponse<String> result = operator.submit(ConsoleHttpTest.confirmation(confirm.body()));
            assertEquals(200, result.statusCode(), result.body());
            assertTrue(ConsoleHttpTest.result(result.body()).startsWith("Requeued"), result.body());
            assertFalse(result.body().contains(META), result.body());
            assertFalse(operator.get("row?q=" + f.queue.name() + "&id=sd-003&refresh=5")
                    .body()
                    .contains(META));
            assertEquals(Sync.PENDING, f.state("d-003"));
        }

        @Test
        void anyOtherRefreshIsA400SayingWhatIsAllowed() throws Exception {
            open(b -> {});
            ConsoleHttpTest.Client reader = new ConsoleHttpTest.Client(f.base(), "reader");
            for (String bad : List.of("4", "1", "301", "999", "-5", "abc", "", "0030", "5.5", "1e2", "\uFF15")) {
                for (String path : List.of("?refresh=", "queue?q=" + f.queue.name() + "&refresh=")) {
                    HttpResponse<String> r = reader.get(path + java.net.URLEncoder.encode(bad, "UTF-8"));
                    assertEquals(400, r.statusCode(), path + bad);
                    assertTrue(
                            r.body()
                                    .contains("refresh must be 0 (the page does not refresh itself) or 5 to 300"
                                            + " seconds."),
                            r.body());
                    assertTrue(r.headers()
                            .firstValue("Content-Security-Policy")
                            .orElseThrow()
                            .contains("default-src 'none'"));
                }
            }
            for (String good : List.of("0", "5", "300", "060")) {
                assertEquals(200, reader.get("?refresh=" + good).statusCode(), good);
            }
        }
    }

    @Test
    void theConsolesIntervalIsBounded() {
        for (Duration bad : List.of(
                Duration.ofSeconds(4),
                Duration.ofSeconds(301),
                Duration.ofMillis(5500),
                Duration.ofSeconds(-30),
                Duration.ofHours(1))) {
            ConfigurationException e = assertThrows(
                    ConfigurationException.class, () -> BatonConsole.builder().refresh(bad));
            assertTrue(
                    e.getMessage().startsWith("refresh must be 0 (off) or 5 to 300 whole seconds, was "),
                    e.getMessage());
        }
        BatonConsole.builder()
                .refresh(Duration.ZERO)
                .refresh(Duration.ofSeconds(5))
                .refresh(Duration.ofSeconds(300));
    }
}
