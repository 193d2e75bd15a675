package dev.baton.console;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.net.httpserver.HttpServer;
import dev.baton.Baton;
import dev.baton.ClaimQueue;
import dev.baton.testkit.DatabaseSuite;
import dev.baton.testkit.compat.Sync;
import dev.baton.testservers.DatabaseKind;
import dev.baton.testservers.TestDatabases;
import dev.baton.testservers.TestServer;
import java.net.CookieManager;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Hostile and mistyped parameters, and what the database holds shown as it is: a queue with BIGINT ids, a text and a
 * binary column, on the two local servers, over HTTP. Every request has a timeout: a request that takes the server
 * down shows as a failure here, not as a hung build.
 */
@ParameterizedClass(name = "{0}")
@EnumSource(
        value = TestServer.class,
        names = {"POSTGRES_LOCAL", "MARIADB_LOCAL"})
class ConsoleInputTest {
    @Parameter
    TestServer server;

    @Nested
    class Input extends DatabaseSuite {
        private String table;
        private BatonConsole console;
        private HttpServer http;
        private ClaimQueue<Sync> queue;
        private final HttpClient client = HttpClient.newBuilder()
                .cookieHandler(new CookieManager())
                .connectTimeout(Duration.ofSeconds(5))
                .followRedirects(HttpClient.Redirect.NEVER)
                .build();

        private void open() throws Exception {
            table = TestDatabases.uniqueName("cn_input");
            String ts = database().kind().timestampType();
            String binary = database().kind() == DatabaseKind.POSTGRES ? "BYTEA" : "BLOB";
            database()
                    .execute("CREATE TABLE " + table + " (id BIGINT NOT NULL PRIMARY KEY, sync_status INT NOT NULL,"
                            + " lease_until " + ts + ", claim_token BIGINT NULL, attempts INT DEFAULT 0 NOT NULL,"
                            + " next_attempt_at " + ts + ", last_error VARCHAR(1000) NULL, created_at " + ts + ","
                            + " note VARCHAR(300) NULL, body " + binary + " NULL)");
            Baton baton = Baton.using(database().dataSource());
            queue = baton.<Sync>queue("cn-" + table)
                    .table(table)
                    .id("id")
                    .claim("sync_status", Sync.MACHINE, Sync.PENDING, Sync.PROCESSING)
                    .select("note", "body")
                    .deadState(Sync.FAILED)
                    .nonIdempotentSink(Sync.SENDING, Sync.UNKNOWN)
                    .lease(Duration.ofSeconds(30))
                    .build();
            console = BatonConsole.builder()
                    .queue(queue)
                    .authenticator(ConsoleFixture::authenticate)
                    .operate(true)
                    .build();
            http = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
            http.createContext("/ops/baton/", console.httpHandler());
            http.start();
            insert(1, Sync.FAILED, "HTTP 500", "first", null);
            insert(2, Sync.FAILED, "HTTP 500", "second", null);
            insert(3, Sync.UNKNOWN, "timeout after send", "third", null);
        }

        @AfterEach
        void close() {
            if (http != null) {
                http.stop(0);
                console.close();
                database().dropTableIfExists(table);
                http = null;
            }
        }

        private void insert(long id, Sync state, String error, String note, byte[] body) throws Exception {
            try (Connection c = database().connect();
                    PreparedStatement ps = c.prepareStatement("INSERT INTO " + table
                            + " (id, sync_status, attempts, last_error, note, body) VALUES (?, ?, 1, ?, ?, ?)")) {
                ps.setLong(1, id);
                ps.setInt(2, state.code());
                ps.setString(3, error);
                ps.setString(4, note);
                ps.setBytes(5, body);
                ps.executeUpdate();
            }
        }

        private Sync state(long id) throws Exception {
            try (Connection c = database().connect();
                    PreparedStatement ps = c.prepareStatement("SELECT sync_status FROM " + table + " WHERE id = ?")) {
                ps.setLong(1, id);
                try (ResultSet rs = ps.executeQuery()) {
                    assertTrue(rs.next());
                    int code = rs.getInt(1);
                    for (Sync s : Sync.values()) {
                        if (s.code() == code) {
                            return s;
                        }
                    }
                    throw new AssertionError(code);
                }
            }
        }

        private String base() {
            return "http://127.0.0.1:" + http.getAddress().getPort() + "/ops/baton/";
        }

        private HttpResponse<String> get(String path, String user) throws Exception {
            return client.send(
                    HttpRequest.newBuilder(URI.create(base() + path))
                            .timeout(Duration.ofSeconds(15))
                            .header(ConsoleFixture.USER_HEADER, user)
                            .GET()
                            .build(),
                    HttpResponse.BodyHandlers.ofString());
        }

        private HttpResponse<String> post(Map<String, String> form) throws Exception {
            String body = form.entrySet().stream()
                    .map(e -> URLEncoder.encode(e.getKey(), StandardCharsets.UTF_8) + "="
                            + URLEncoder.encode(e.getValue(), StandardCharsets.UTF_8))
                    .collect(Collectors.joining("&"));
            return client.send(
                    HttpRequest.newBuilder(URI.create(base() + "action"))
                            .timeout(Duration.ofSeconds(15))
                            .header(ConsoleFixture.USER_HEADER, "operator")
                            .header("Content-Type", "application/x-www-form-urlencoded")
                            .POST(HttpRequest.BodyPublishers.ofString(body))
                            .build(),
                    HttpResponse.BodyHandlers.ofString());
        }

        private String page() throws Exception {
            HttpResponse<String> r =
                    get("queue?q=" + URLEncoder.encode(queue.name(), StandardCharsets.UTF_8), "reader");
            assertEquals(200, r.statusCode(), r.body());
            return r.body();
        }

        private String token() throws Exception {
            HttpResponse<String> r =
                    get("queue?q=" + URLEncoder.encode(queue.name(), StandardCharsets.UTF_8), "operator");
            java.util.regex.Matcher m = java.util.regex.Pattern.compile("name=\"csrf\" value=\"([^\"]+)\"")
                    .matcher(r.body());
            assertTrue(m.find(), r.body());
            return m.group(1);
        }

        private void assertRefused(HttpResponse<String> r, String what) {
            assertEquals(400, r.statusCode(), what + ": " + r.body());
            assertTrue(r.headers().firstValue("Content-Security-Policy").isPresent(), what + ": the console's headers");
        }

        @Test
        void aPageIdWithAHugeExponentIsA400AndTheHostLives() throws Exception {
            open();
            String q = "queue?q=" + URLEncoder.encode(queue.name(), StandardCharsets.UTF_8);
            for (String param : List.of("dead", "unknown")) {
                HttpResponse<String> r = get(q + "&" + param + "=d1e999999999", "reader");
                assertRefused(r, param);
                assertTrue(r.body().contains("Not a row id of this queue"), r.body());
            }
            String token = token();
            HttpResponse<String> r = post(
                    Map.of("op", "requeue", "q", queue.name(), "id", "d1e999999999", "csrf", token, "confirm", "yes"));
            assertRefused(r, "requeue");
            r = post(Map.of(
                    "op",
                    "resolve",
                    "q",
                    queue.name(),
                    "id",
                    "d-1e999999999",
                    "verdict",
                    "not-sent",
                    "evidence",
                    "x",
                    "csrf",
                    token));
            assertRefused(r, "resolve");
            // the host still answers, and the rows did not move
            assertTrue(page().contains("first"));
            assertEquals(Sync.FAILED, state(1));
            assertEquals(Sync.UNKNOWN, state(3));
        }

        @Test
        void anIdOfAnotherTypeOrMalformedIsA400NotADroppedConnection() throws Exception {
            open();
            String q = "queue?q=" + URLEncoder.encode(queue.name(), StandardCharsets.UTF_8);
            List<String> bad = List.of(
                    "sabc", // a string id on a BIGINT queue: a type error in the database before
                    "s1",
                    "i1", // an INT id: another type than this queue's
                    "l99999999999999999999", // past a BIGINT
                    "l1.5",
                    "l 1",
                    "l\uFF11", // a full-width digit
                    "u1234",
                    "d1.5",
                    "x1",
                    "l" + "1".repeat(500));
            for (String id : bad) {
                for (String param : List.of("dead", "unknown")) {
                    HttpResponse<String> r =
                            get(q + "&" + param + "=" + URLEncoder.encode(id, StandardCharsets.UTF_8), "reader");
                    assertRefused(r, param + "=" + id);
                }
            }
            String token = token();
            for (String id : bad) {
                assertRefused(
                        post(Map.of("op", "requeue", "q", queue.name(), "id", id, "csrf", token)), "requeue " + id);
            }
            // the right type pages and acts
            assertEquals(200, get(q + "&dead=l1", "reader").statusCode());
            assertEquals(
                    200,
                    post(Map.of("op", "requeue", "q", queue.name(), "id", "l1", "csrf", token))
                            .statusCode());
            assertEquals(Sync.FAILED, state(1), "a confirmation page only");
        }

        @Test
        void aFailureInsideTheConsoleIsA500PageNotADroppedConnection() throws Exception {
            open();
            database().execute("DROP TABLE " + table); // every query of the queue page fails now
            HttpResponse<String> r =
                    get("queue?q=" + URLEncoder.encode(queue.name(), StandardCharsets.UTF_8), "reader");
            assertEquals(500, r.statusCode(), r.body());
            assertTrue(r.body().contains("The console failed on this request"), r.body());
            assertFalse(r.body().contains(table), "nothing of the exception on the page");
            assertTrue(r.headers().firstValue("Content-Security-Policy").isPresent());
            database().execute("CREATE TABLE " + table + " (id BIGINT)"); // for the drop after the test
        }

        @Test
        void overlongAndMistypedParametersAreA400() throws Exception {
            open();
            String token = token();
            assertRefused(get("queue?q=" + "q".repeat(5000), "reader"), "a long queue name");
            for (String n : List.of("\uFF11\uFF10", "1e1", "+5", " 5x", "0x10", "5".repeat(2000))) {
                assertRefused(
                        post(Map.of("op", "requeue-all", "q", queue.name(), "n", n, "csrf", token, "confirm", "yes")),
                        "n=" + n);
            }
            assertRefused(
                    post(Map.of("op", "requeue-all", "q", queue.name(), "n", "1", "csrf", "t".repeat(5000))),
                    "a long token");
            for (String verdict : List.of("", "sent", "sent:", "sent:FAILED", "sent:" + "X".repeat(2000), "maybe")) {
                assertRefused(
                        post(Map.of(
                                "op",
                                "resolve",
                                "q",
                                queue.name(),
                                "id",
                                "l3",
                                "verdict",
                                verdict,
                                "evidence",
                                "x",
                                "csrf",
                                token)),
                        "verdict " + verdict);
            }
            assertRefused(
                    post(Map.of(
                            "op",
                            "requeue",
                            "q",
                            queue.name(),
                            "id",
                            "l1",
                            "csrf",
                            token,
                            "action",
                            "x".repeat(3000),
                            "confirm",
                            "yes")),
                    "a long action id");
            assertEquals(Sync.FAILED, state(1));
            assertEquals(Sync.UNKNOWN, state(3));
        }

        @Test
        void payloadsAreShownAsTextAndBinaryAsBinary() throws Exception {
            open();
            insert(
                    10,
                    Sync.FAILED,
                    "HTTP 422",
                    "json",
                    "{\"order\":42,\"lines\":[{\"sku\":\"A-1\",\"qty\":2}],\"note\":\"caf\u00e9\"}"
                            .getBytes(StandardCharsets.UTF_8));
            insert(11, Sync.FAILED, "HTTP 422", "binary", new byte[] {(byte) 0xff, 0x00, 0x01, (byte) 0xfe});
            insert(12, Sync.FAILED, "HTTP 422", "text", "plain text, caf\u00e9".getBytes(StandardCharsets.UTF_8));
            String body = page();
            assertFalse(body.contains("[B@"), "a byte array's identity on the page");
            String json = ConsoleHttpTest.row(body, "l10");
            assertTrue(
                    json.contains("{\n  &quot;order&quot;: 42,\n  &quot;lines&quot;: [\n    {\n      &quot;sku&quot;:"
                            + " &quot;A-1&quot;,"),
                    json);
            assertTrue(json.contains("&quot;caf\u00e9&quot;"), json);
            assertTrue(ConsoleHttpTest.row(body, "l11").contains("binary, 4 bytes: ff 00 01 fe"), body);
            assertTrue(ConsoleHttpTest.row(body, "l12").contains("plain text, caf\u00e9"), body);
        }

        @Test
        void invisibleCharactersFromTheDatabaseAreShownNotObeyed() throws Exception {
            open();
            insert(20, Sync.FAILED, "refund \u202Edeifirev\u202C ok", "zero\u200Bwidth \u2066isolate\u2069", null);
            String body = page();
            for (char c : new char[] {'\u202E', '\u202C', '\u200B', '\u2066', '\u2069'}) {
                assertFalse(body.indexOf(c) >= 0, String.format("U+%04X reached the page as itself", (int) c));
            }
            String row = ConsoleHttpTest.row(body, "l20");
            assertTrue(row.contains("refund <span class=\"cc\""), row);
            assertTrue(row.contains(">\\u202E</span>deifirev<span"), row);
            assertTrue(row.contains(">\\u200B</span>"), row);
        }
    }
}
