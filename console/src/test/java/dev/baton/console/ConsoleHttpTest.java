package dev.baton.console;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.baton.ConfigurationException;
import dev.baton.Outcome;
import dev.baton.Worker;
import dev.baton.testkit.DatabaseSuite;
import dev.baton.testkit.compat.Sync;
import dev.baton.testservers.TestServer;
import java.net.CookieManager;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.EnumSource;

/** The console over HTTP (the JDK client against the JDK server): security, escaping and actions, per database. */
@ParameterizedClass(name = "{0}")
@EnumSource(
        value = TestServer.class,
        names = {"POSTGRES_LOCAL", "MARIADB_LOCAL"})
class ConsoleHttpTest {
    @Parameter
    TestServer server;

    private static final Pattern CSRF = Pattern.compile("name=\"csrf\" value=\"([^\"]+)\"");

    /** A browser-like client: its own cookie jar (one console session), a user header or none. */
    static final class Client {
        final HttpClient http;
        final String base;
        final String user;

        Client(String base, String user) {
            this(
                    HttpClient.newBuilder()
                            .cookieHandler(new CookieManager())
                            .followRedirects(HttpClient.Redirect.NEVER)
                            .build(),
                    base,
                    user);
        }

        /** A client on {@code http}'s cookie jar: one browser talking to another instance. */
        Client(HttpClient http, String base, String user) {
            this.http = http;
            this.base = base;
            this.user = user;
        }

        HttpResponse<String> get(String path) throws Exception {
            HttpRequest.Builder r =
                    HttpRequest.newBuilder(URI.create(base + path)).GET();
            if (user != null) {
                r.header(ConsoleFixture.USER_HEADER, user);
            }
            return http.send(r.build(), HttpResponse.BodyHandlers.ofString());
        }

        HttpResponse<String> post(String path, Map<String, String> form) throws Exception {
            StringBuilder body = new StringBuilder();
            form.forEach((k, v) -> body.append(body.length() == 0 ? "" : "&")
                    .append(URLEncoder.encode(k, StandardCharsets.UTF_8))
                    .append('=')
                    .append(URLEncoder.encode(v, StandardCharsets.UTF_8)));
            HttpRequest.Builder r = HttpRequest.newBuilder(URI.create(base + path))
                    .header("Content-Type", "application/x-www-form-urlencoded")
                    .POST(HttpRequest.BodyPublishers.ofString(body.toString()));
            if (user != null) {
                r.header(ConsoleFixture.USER_HEADER, user);
            }
            return http.send(r.build(), HttpResponse.BodyHandlers.ofString());
        }

        /**
         * What a browser does with {@code form}: posts it (without {@code confirm}), submits the confirmation page's
         * form as it is, and follows a redirect to the result page; the last response.
         */
        HttpResponse<String> act(Map<String, String> form) throws Exception {
            Map<String, String> f = new LinkedHashMap<>(form);
            f.remove("confirm");
            HttpResponse<String> confirm = post("action", f);
            assertEquals(200, confirm.statusCode(), confirm.body());
            return submit(confirmation(confirm.body()));
        }

        /** Posts a confirmation form; follows a 303 to the result page. */
        HttpResponse<String> submit(Map<String, String> confirmation) throws Exception {
            HttpResponse<String> r = post("action", confirmation);
            if (r.statusCode() == 303) {
                return get(r.headers().firstValue("Location").orElseThrow());
            }
            return r;
        }

        /** The CSRF token of this client's session, read from a page. */
        String token(String queue) throws Exception {
            HttpResponse<String> page = get("queue?q=" + URLEncoder.encode(queue, StandardCharsets.UTF_8));
            assertEquals(200, page.statusCode(), page.body());
            Matcher m = CSRF.matcher(page.body());
            assertTrue(m.find(), "no CSRF token on the page of an operator");
            return m.group(1);
        }
    }

    static Map<String, String> form(String... kv) {
        Map<String, String> m = new LinkedHashMap<>();
        for (int i = 0; i < kv.length; i += 2) {
            m.put(kv[i], kv[i + 1]);
        }
        return m;
    }

    static String result(String body) {
        Matcher m = Pattern.compile("<p id=\"result\"[^>]*>(.*?)</p>", Pattern.DOTALL)
                .matcher(body);
        assertTrue(m.find(), "no result on the page: " + body);
        return unescape(m.group(1).replaceAll("<[^>]*>", ""));
    }

    static String heading(String body) {
        Matcher m = Pattern.compile("<main><h1[^>]*>([^<]*)</h1>").matcher(body);
        assertTrue(m.find(), "no heading on the page: " + body);
        return m.group(1);
    }

    private static final Pattern HIDDEN =
            Pattern.compile("<input type=\"hidden\" name=\"([^\"]*)\" value=\"([^\"]*)\">");

    /** The hidden fields of the first form in {@code html}, as a browser sends them. */
    static Map<String, String> hiddenFields(String html) {
        Matcher form =
                Pattern.compile("<form[^>]*>(.*?)</form>", Pattern.DOTALL).matcher(html);
        assertTrue(form.find(), "no form in " + html);
        Map<String, String> fields = new LinkedHashMap<>();
        Matcher m = HIDDEN.matcher(form.group(1));
        while (m.find()) {
            fields.put(unescape(m.group(1)), unescape(m.group(2)));
        }
        return fields;
    }

    /** The form of a confirmation page. */
    static Map<String, String> confirmation(String body) {
        int at = body.indexOf("id=\"confirm-text\"");
        assertTrue(at >= 0, "not a confirmation page: " + body);
        return hiddenFields(body.substring(at));
    }

    /** The HTML of the table row of {@code encodedId}. */
    static String row(String body, String encodedId) {
        int at = body.indexOf("<tr data-id=\"" + encodedId + "\"");
        assertTrue(at >= 0, "no row " + encodedId + " on the page");
        return body.substring(at, body.indexOf("</tr>", at));
    }

    static String unescape(String s) {
        Matcher m = Pattern.compile("&#x([0-9a-fA-F]+);|&#([0-9]+);").matcher(s);
        StringBuilder b = new StringBuilder();
        while (m.find()) {
            int cp = m.group(1) != null ? Integer.parseInt(m.group(1), 16) : Integer.parseInt(m.group(2));
            m.appendReplacement(b, Matcher.quoteReplacement(new String(Character.toChars(cp))));
        }
        m.appendTail(b);
        return b.toString()
                .replace("&lt;", "<")
                .replace("&gt;", ">")
                .replace("&quot;", "\"")
                .replace("&amp;", "&");
    }

    @Nested
    class Console extends DatabaseSuite {
        private ConsoleFixture f;
        private final List<ConsoleAction> audited = new ArrayList<>();

        private ConsoleFixture open(boolean operate, int pageSize, int dead) {
            f = new ConsoleFixture(database(), operate, pageSize, b -> b.audit(audited::add));
            f.seed(dead);
            f.console.sample();
            return f;
        }

        @AfterEach
        void close() {
            if (f != null) {
                f.close();
                f = null;
            }
            audited.clear(); // one instance serves all the tests of a server
        }

        @Test
        void anAnonymousRequestGets401AndNothingElse() throws Exception {
            open(true, 50, 4);
            Client anonymous = new Client(f.base(), null);
            Client stranger = new Client(f.base(), "nobody");
            for (Client c : List.of(anonymous, stranger)) {
                for (String path : List.of("", "queue?q=" + f.queue.name(), "nothing-here")) {
                    HttpResponse<String> r = c.get(path);
                    assertEquals(401, r.statusCode(), path);
                    assertFalse(r.body().contains(f.table), "the table's name leaked: " + r.body());
                    assertFalse(r.body().contains("d-003"), r.body());
                    assertTrue(r.headers().firstValue("Set-Cookie").isEmpty(), "no session for nobody");
                }
                HttpResponse<String> r =
                        c.post("action", form("op", "requeue", "q", f.queue.name(), "id", "sd-003", "confirm", "yes"));
                assertEquals(401, r.statusCode());
            }
            assertEquals(Sync.FAILED, f.state("d-003"));
            assertTrue(audited.isEmpty());
        }

        @Test
        void aReaderSeesButGets403OnEveryAction() throws Exception {
            open(true, 50, 4);
            Client reader = new Client(f.base(), "reader");
            HttpResponse<String> page = reader.get("queue?q=" + f.queue.name());
            assertEquals(200, page.statusCode());
            assertTrue(page.body().contains("d-003"));
            assertFalse(page.body().contains("method=\"post\""), "a reader is offered no action");
            // a reader holding an operator's token still cannot act: the token is the operator's, and reading is all
            String operatorToken = new Client(f.base(), "operator").token(f.queue.name());
            for (Map<String, String> action : List.of(
                    form("op", "requeue", "q", f.queue.name(), "id", "sd-003"),
                    form("op", "requeue-all", "q", f.queue.name(), "n", "10"),
                    form("op", "resolve", "q", f.queue.name(), "id", "su-1", "verdict", "not-sent", "evidence", "x"))) {
                action.put("confirm", "yes");
                action.put("csrf", operatorToken);
                HttpResponse<String> r = reader.post("action", action);
                assertEquals(403, r.statusCode(), action.toString());
            }
            assertEquals(Sync.FAILED, f.state("d-003"));
            assertEquals(Sync.UNKNOWN, f.state("u-1"));
            assertTrue(audited.isEmpty());
        }

        @Test
        void aReadOnlyConsoleRefusesOperatorsToo() throws Exception {
            open(false, 50, 4);
            Client operator = new Client(f.base(), "operator");
            HttpResponse<String> page = operator.get("queue?q=" + f.queue.name());
            assertEquals(200, page.statusCode());
            assertFalse(page.body().contains("method=\"post\""));
            HttpResponse<String> r = operator.post(
                    "action", form("op", "requeue", "q", f.queue.name(), "id", "sd-003", "confirm", "yes"));
            assertEquals(403, r.statusCode());
            assertEquals(Sync.FAILED, f.state("d-003"));
        }

        @Test
        void anActionWithoutTheSessionsCsrfTokenIsRefused() throws Exception {
            open(true, 50, 4);
            Client operator = new Client(f.base(), "operator");
            String token = operator.token(f.queue.name());
            Map<String, String> requeue = form("op", "requeue", "q", f.queue.name(), "id", "sd-003", "confirm", "yes");
            assertEquals(403, operator.post("action", requeue).statusCode(), "no token");
            requeue.put("csrf", "");
            assertEquals(403, operator.post("action", requeue).statusCode(), "empty token");
            requeue.put("csrf", token.substring(1) + "A");
            assertEquals(403, operator.post("action", requeue).statusCode(), "wrong token");
            // the right token from another session (another cookie jar) is refused: tokens belong to one session
            Client other = new Client(f.base(), "operator");
            other.get("");
            requeue.put("csrf", token);
            assertEquals(403, other.post("action", requeue).statusCode(), "another session's token");
            // and a GET never acts
            assertEquals(
                    405,
                    operator.get("action?op=requeue&q=" + f.queue.name() + "&id=sd-003&csrf=" + token + "&confirm=yes")
                            .statusCode());
            assertEquals(Sync.FAILED, f.state("d-003"));
            assertTrue(audited.isEmpty());
            // the same request with the session's token works
            HttpResponse<String> ok = operator.act(requeue);
            assertEquals(200, ok.statusCode());
            assertTrue(result(ok.body()).startsWith("Requeued"), ok.body());
        }

        @Test
        void hostileErrorTextsIdsAndEvidenceRenderInert() throws Exception {
            open(true, 50, 4);
            Client operator = new Client(f.base(), "operator");
            HttpResponse<String> page = operator.get("queue?q=" + f.queue.name());
            String body = page.body();
            assertEquals(200, page.statusCode());
            assertFalse(body.contains("<script"), "raw script tag on the page");
            assertFalse(body.contains("<img"), "raw img tag on the page");
            assertFalse(body.contains("<b>payload"), "raw payload markup on the page");
            assertTrue(
                    body.contains("&lt;script&gt;alert(&quot;boom&quot;)&lt;/script&gt;"),
                    "the error is shown escaped");
            assertTrue(
                    body.contains("&lt;script&gt;alert(&#39;id&#39;)&lt;/script&gt;&quot;x"),
                    "the id is shown escaped");
            assertFalse(body.contains(ConsoleFixture.LONG_ERROR), "a long error is cut");
            assertTrue(body.contains("(990 characters)"));
            assertTrue(page.headers()
                    .firstValue("Content-Security-Policy")
                    .orElseThrow()
                    .contains("default-src 'none'"));
            assertEquals(
                    "nosniff",
                    page.headers().firstValue("X-Content-Type-Options").orElseThrow());
            assertEquals("DENY", page.headers().firstValue("X-Frame-Options").orElseThrow());

            // the hostile id round-trips through the form and is requeued; the confirmation and result pages escape it
            String token = operator.token(f.queue.name());
            Map<String, String> requeue =
                    form("op", "requeue", "q", f.queue.name(), "id", "s" + ConsoleFixture.HOSTILE_ID, "csrf", token);
            HttpResponse<String> confirm = operator.post("action", requeue);
            assertEquals(200, confirm.statusCode());
            assertFalse(confirm.body().contains("<script"), confirm.body());
            HttpResponse<String> done = operator.act(requeue);
            assertFalse(done.body().contains("<script"), done.body());
            assertTrue(result(done.body()).startsWith("Requeued"));
            assertEquals(Sync.PENDING, f.state(ConsoleFixture.HOSTILE_ID));

            // hostile, long evidence: echoed escaped on the confirmation page, kept verbatim in the audit entry
            String evidence = "<script>steal()</script>\" onmouseover=\"x' " + "z".repeat(1500);
            Map<String, String> resolve = form(
                    "op",
                    "resolve",
                    "q",
                    f.queue.name(),
                    "id",
                    "su-2",
                    "verdict",
                    "dead",
                    "evidence",
                    evidence,
                    "csrf",
                    token);
            HttpResponse<String> c2 = operator.post("action", resolve);
            assertFalse(c2.body().contains("<script"), c2.body());
            assertFalse(c2.body().contains("\" onmouseover=\"x"), "an attribute was broken out of");
            HttpResponse<String> d2 = operator.act(resolve);
            assertFalse(d2.body().contains("<script"), d2.body());
            assertEquals(Sync.FAILED, f.state("u-2"));
            assertEquals(evidence, audited.get(audited.size() - 1).evidence());
            HttpResponse<String> overview = operator.get("");
            assertFalse(overview.body().contains("<script"), "the audit table escapes the evidence");
            // too long evidence is refused with a fixed sentence
            resolve.put("evidence", "y".repeat(2001));
            resolve.put("id", "su-1");
            resolve.put("confirm", "yes");
            assertEquals(400, operator.post("action", resolve).statusCode());
            assertEquals(Sync.UNKNOWN, f.state("u-1"));
        }

        @Test
        void requeueOneGoesThroughAConfirmationAndAppliesOnce() throws Exception {
            open(true, 50, 4);
            Client operator = new Client(f.base(), "operator");
            String token = operator.token(f.queue.name());
            Map<String, String> requeue = form("op", "requeue", "q", f.queue.name(), "id", "sd-003", "csrf", token);
            HttpResponse<String> confirm = operator.post("action", requeue);
            assertEquals(200, confirm.statusCode());
            assertTrue(confirm.body().contains("Requeue dead row d-003"), confirm.body());
            assertEquals(Sync.FAILED, f.state("d-003"), "nothing moves before the confirmation");
            assertTrue(audited.isEmpty());
            assertTrue(result(operator.act(requeue).body()).startsWith("Requeued"));
            HttpResponse<String> again = operator.act(requeue);
            assertEquals("Nothing done", heading(again.body()));
            assertTrue(result(again.body()).startsWith("Nothing done: dead row d-003 had been requeued already"));
            assertEquals(Sync.PENDING, f.state("d-003"));
            assertEquals(2, audited.size());
            ConsoleAction a = audited.get(0);
            assertEquals("alice-operator", a.principal());
            assertEquals("requeue", a.action());
            assertEquals("d-003", a.target());
            assertTrue(a.result().startsWith("Applied"));
            // the page's numbers were measured again after the action
            assertEquals(f.counts().get(Sync.FAILED), f.console.recentActions().isEmpty() ? -1 : deadOnPage(operator));
        }

        private long deadOnPage(Client c) throws Exception {
            Matcher m =
                    Pattern.compile("data-k=\"dead\">(\\d+)<").matcher(c.get("").body());
            assertTrue(m.find());
            return Long.parseLong(m.group(1));
        }

        @Test
        void concurrentRequeuesOfOneRowGiveOneApplied() throws Exception {
            open(true, 50, 4);
            List<Client> operators = List.of(
                    new Client(f.base(), "operator"),
                    new Client(f.base(), "operator"),
                    new Client(f.base(), "operator"),
                    new Client(f.base(), "operator"));
            List<Map<String, String>> forms = new ArrayList<>();
            for (Client c : operators) {
                forms.add(confirmation(c.post(
                                "action",
                                form(
                                        "op",
                                        "requeue",
                                        "q",
                                        f.queue.name(),
                                        "id",
                                        "sd-004",
                                        "csrf",
                                        c.token(f.queue.name())))
                        .body()));
            }
            List<Thread> threads = new ArrayList<>();
            List<String> results = java.util.Collections.synchronizedList(new ArrayList<>());
            java.util.concurrent.CountDownLatch go = new java.util.concurrent.CountDownLatch(1);
            for (int i = 0; i < operators.size(); i++) {
                Client c = operators.get(i);
                Map<String, String> fm = forms.get(i);
                Thread th = new Thread(() -> {
                    try {
                        go.await();
                        results.add(result(c.submit(fm).body()));
                    } catch (Exception e) {
                        results.add("error " + e);
                    }
                });
                th.start();
                threads.add(th);
            }
            go.countDown();
            for (Thread t : threads) {
                t.join();
            }
            assertEquals(
                    1, results.stream().filter(r -> r.startsWith("Requeued")).count(), results.toString());
            assertEquals(
                    3,
                    results.stream()
                            .filter(r -> r.startsWith("Nothing done: dead row d-004 had been requeued already"))
                            .count(),
                    results.toString());
            assertEquals(Sync.PENDING, f.state("d-004"));
        }

        @Test
        void requeueManyIsBounded() throws Exception {
            open(true, 50, 12);
            Client operator = new Client(f.base(), "operator");
            String token = operator.token(f.queue.name());
            for (String n : List.of("0", "-1", "101", "x", "99999999999")) {
                assertEquals(
                        400,
                        operator.post(
                                        "action",
                                        form(
                                                "op",
                                                "requeue-all",
                                                "q",
                                                f.queue.name(),
                                                "n",
                                                n,
                                                "csrf",
                                                token,
                                                "confirm",
                                                "yes"))
                                .statusCode(),
                        n);
            }
            long before = f.counts().get(Sync.FAILED);
            HttpResponse<String> r =
                    operator.act(form("op", "requeue-all", "q", f.queue.name(), "n", "5", "csrf", token));
            assertEquals("Requeued 5 dead rows, lowest id first.", result(r.body()));
            assertEquals("5 rows requeued", audited.get(0).result());
            assertEquals(before - 5, f.counts().get(Sync.FAILED));
            assertEquals("up to 5", audited.get(0).target());
        }

        @Test
        void resolvingAnUnknownSendNeedsEvidenceAndIsAudited() throws Exception {
            open(true, 50, 4);
            Client operator = new Client(f.base(), "operator");
            String token = operator.token(f.queue.name());
            Map<String, String> resolve = form(
                    "op",
                    "resolve",
                    "q",
                    f.queue.name(),
                    "id",
                    "su-1",
                    "verdict",
                    "sent:COMPLETED",
                    "evidence",
                    " ",
                    "csrf",
                    token,
                    "confirm",
                    "yes");
            assertEquals(400, operator.post("action", resolve).statusCode(), "blank evidence");
            resolve.put("verdict", "sent:FAILED");
            resolve.put("evidence", "x");
            assertEquals(400, operator.post("action", resolve).statusCode(), "not a completion state");
            resolve.put("verdict", "sent:COMPLETED");
            resolve.put("evidence", "receiver ticket 4711 shows the payment");
            assertEquals(
                    "Resolved as sent: unknown send u-1 is COMPLETED now.",
                    result(operator.act(resolve).body()));
            assertEquals(Sync.COMPLETED, f.state("u-1"));
            ConsoleAction a = audited.get(0);
            assertEquals("alice-operator", a.principal());
            assertEquals("resolve", a.action());
            assertEquals("receiver ticket 4711 shows the payment", a.evidence());
            assertTrue(
                    operator.get("").body().contains("receiver ticket 4711 shows the payment"),
                    "listed as a recent action");
            resolve.put("id", "su-2");
            resolve.put("verdict", "not-sent");
            assertEquals(
                    "Resolved as not sent: unknown send u-2 is PENDING now and will be sent again.",
                    result(operator.act(resolve).body()));
            assertEquals(Sync.PENDING, f.state("u-2"));
        }

        @Test
        void deadLettersArePagedByKey() throws Exception {
            f = new ConsoleFixture(database(), true, 5, b -> {});
            f.seed(14); // 14 dead rows: pages of 5, 5, 4
            Client reader = new Client(f.base(), "reader");
            List<String> seen = new ArrayList<>();
            String path = "queue?q=" + f.queue.name();
            int pages = 0;
            while (path != null) {
                String body = reader.get(path).body();
                pages++;
                Matcher rows = Pattern.compile("<table id=\"dead\">.*?</table>", Pattern.DOTALL)
                        .matcher(body);
                assertTrue(rows.find());
                Matcher ids = Pattern.compile("<tr data-id=\"([^\"]+)\"").matcher(rows.group());
                while (ids.find()) {
                    seen.add(ids.group(1));
                }
                Matcher next = Pattern.compile("rel=\"next\" data-page=\"dead\" href=\"([^\"]+)\"")
                        .matcher(body);
                path = next.find() ? next.group(1).replace("&amp;", "&") : null;
            }
            assertEquals(3, pages);
            assertEquals(14, seen.size());
            assertEquals(14, new java.util.HashSet<>(seen).size());
            assertEquals(
                    400, reader.get("queue?q=" + f.queue.name() + "&dead=zzz").statusCode());
            assertEquals(400, reader.get("queue?q=no-such-queue").statusCode());
        }

        @Test
        void theOverviewShowsTheDatabasesCounts() throws Exception {
            open(true, 50, 6);
            f.console.sample();
            String body = new Client(f.base(), "reader").get("").body();
            Map<Sync, Long> db = f.counts();
            assertEquals(db.get(Sync.FAILED), number(body, "dead"));
            assertEquals(db.get(Sync.UNKNOWN), number(body, "unknown"));
            assertEquals(db.get(Sync.PENDING), number(body, "eligible") + number(body, "waiting"));
            assertEquals(db.get(Sync.PROCESSING), number(body, "in-flight") + number(body, "expired"));
        }

        @Test
        void aCountPastTenThousandIsShownAsTenThousandPlus() throws Exception {
            open(false, 50, 0);
            String digit = "(SELECT 0 AS n UNION ALL SELECT 1 UNION ALL SELECT 2 UNION ALL SELECT 3 UNION ALL SELECT 4"
                    + " UNION ALL SELECT 5 UNION ALL SELECT 6 UNION ALL SELECT 7 UNION ALL SELECT 8 UNION ALL SELECT 9)";
            // 20,000 dead rows in one statement: the page's count stops at 10,001 and says so
            f.db.execute("INSERT INTO " + f.table + " (id, sync_status, attempts, last_error)"
                    + " SELECT CONCAT('big-', e.n * 10000 + a.n * 1000 + b.n * 100 + c.n * 10 + d.n), "
                    + Sync.FAILED.code() + ", 5, 'gave up' FROM " + digit + " a, " + digit + " b, " + digit + " c, "
                    + digit + " d, (SELECT 0 AS n UNION ALL SELECT 1) e");
            f.console.sample();
            String body = new Client(f.base(), "reader").get("").body();
            assertTrue(body.contains("data-k=\"dead\">10,000+<"), body);
            assertEquals(3, number(body, "eligible"), "the counts below the bound stay exact");
            assertEquals(2, number(body, "unknown"));
        }

        private long number(String body, String key) {
            Matcher m = Pattern.compile("data-k=\"" + key + "\">(\\d+)<").matcher(body);
            assertTrue(m.find(), key);
            return Long.parseLong(m.group(1));
        }

        @Test
        void pauseStopsTheWorkersClaimsAndResumeRestartsThem() throws Exception {
            AtomicInteger handled = new AtomicInteger();
            f = new ConsoleFixture(database(), true, 50, b -> {});
            Worker worker = f.baton
                    .worker(f.queue)
                    .pollInterval(java.time.Duration.ofMillis(20), java.time.Duration.ofMillis(50))
                    .handle(row -> {
                        handled.incrementAndGet();
                        return Outcome.complete(Sync.COMPLETED);
                    })
                    .start();
            try (BatonConsole console = BatonConsole.builder()
                    .worker(worker)
                    .authenticator(ConsoleFixture::authenticate)
                    .operate(true)
                    .audit(audited::add)
                    .build()) {
                com.sun.net.httpserver.HttpServer s = com.sun.net.httpserver.HttpServer.create(
                        new java.net.InetSocketAddress(java.net.InetAddress.getLoopbackAddress(), 0), 0);
                s.createContext("/c/", console.httpHandler());
                s.start();
                try {
                    Client operator =
                            new Client("http://127.0.0.1:" + s.getAddress().getPort() + "/c/", "operator");
                    String token = operator.token(f.queue.name());
                    HttpResponse<String> r = operator.act(form("op", "pause", "q", f.queue.name(), "csrf", token));
                    assertTrue(result(r.body()).startsWith("Paused 1 worker(s)"), r.body());
                    assertTrue(worker.isPaused());
                    assertTrue(operator.get("").body().contains("1 paused"));
                    f.insert("late-1", Sync.PENDING, 0, null, "x");
                    Thread.sleep(400); // 20 polls' worth: a running worker would have claimed it
                    assertEquals(0, handled.get());
                    assertEquals(Sync.PENDING, f.state("late-1"));
                    r = operator.act(form("op", "resume", "q", f.queue.name(), "csrf", token));
                    assertTrue(result(r.body()).startsWith("Resumed 1 worker(s)"), r.body());
                    long deadline = System.nanoTime() + 10_000_000_000L;
                    while (f.state("late-1") != Sync.COMPLETED && System.nanoTime() < deadline) {
                        Thread.sleep(20);
                    }
                    assertEquals(Sync.COMPLETED, f.state("late-1"));
                    assertEquals(
                            List.of("pause", "resume"),
                            audited.stream().map(ConsoleAction::action).toList());
                } finally {
                    s.stop(0);
                }
            } finally {
                worker.close();
            }
        }

        @Test
        void aSecondPostOfAConfirmedFormAppliesNothingAndSaysSo() throws Exception {
            open(true, 50, 14);
            Client operator = new Client(f.base(), "operator");
            String token = operator.token(f.queue.name());
            long before = f.counts().get(Sync.FAILED);
            Map<String, String> confirmation = confirmation(
                    operator.post("action", form("op", "requeue-all", "q", f.queue.name(), "n", "5", "csrf", token))
                            .body());
            HttpResponse<String> first = operator.submit(confirmation);
            assertEquals("Done", heading(first.body()));
            assertEquals(before - 5, f.counts().get(Sync.FAILED));
            // the browser's reload of the result page, and a second POST of the same confirmation (back, resubmit)
            HttpResponse<String> again = operator.submit(confirmation);
            assertEquals("Nothing done", heading(again.body()), again.body());
            assertTrue(result(again.body()).contains("used already"), again.body());
            assertEquals(before - 5, f.counts().get(Sync.FAILED), "the second POST moved more rows");
            assertEquals(1, audited.size());

            // one row, the same
            Map<String, String> one = confirmation(
                    operator.post("action", form("op", "requeue", "q", f.queue.name(), "id", "sd-013", "csrf", token))
                            .body());
            assertTrue(result(operator.submit(one).body()).startsWith("Requeued"));
            f.db.execute("UPDATE " + f.table + " SET sync_status = " + Sync.FAILED.code() + " WHERE id = 'd-013'");
            HttpResponse<String> replay = operator.submit(one);
            assertEquals("Nothing done", heading(replay.body()), replay.body());
            assertEquals(Sync.FAILED, f.state("d-013"), "the replay requeued the row again");
            assertEquals(2, audited.size());
        }

        @Test
        void theOperatorWhoLostTheRaceIsToldNothingWasDone() throws Exception {
            open(true, 50, 4);
            Client alice = new Client(f.base(), "operator");
            Client tab2 = new Client(f.base(), "operator");
            Map<String, String> first = confirmation(alice.post(
                            "action",
                            form(
                                    "op",
                                    "requeue",
                                    "q",
                                    f.queue.name(),
                                    "id",
                                    "sd-003",
                                    "csrf",
                                    alice.token(f.queue.name())))
                    .body());
            Map<String, String> second = confirmation(tab2.post(
                            "action",
                            form(
                                    "op",
                                    "requeue",
                                    "q",
                                    f.queue.name(),
                                    "id",
                                    "sd-003",
                                    "csrf",
                                    tab2.token(f.queue.name())))
                    .body());
            HttpResponse<String> won = alice.submit(first);
            assertEquals("Done", heading(won.body()));
            assertTrue(result(won.body()).startsWith("Requeued: dead row d-003 is PENDING now"), won.body());
            HttpResponse<String> lost = tab2.submit(second);
            assertEquals("Nothing done", heading(lost.body()), lost.body());
            assertTrue(
                    result(lost.body())
                            .startsWith("Nothing done: dead row d-003 had been requeued already (it is"
                                    + " PENDING). It was last changed through this console by alice-operator at "),
                    lost.body());

            // two verdicts on one unknown send: the second is told its verdict was not applied
            Map<String, String> sent = confirmation(alice.post(
                            "action",
                            form(
                                    "op",
                                    "resolve",
                                    "q",
                                    f.queue.name(),
                                    "id",
                                    "su-1",
                                    "verdict",
                                    "sent:COMPLETED",
                                    "evidence",
                                    "receiver has it",
                                    "csrf",
                                    alice.token(f.queue.name())))
                    .body());
            Map<String, String> notSent = confirmation(tab2.post(
                            "action",
                            form(
                                    "op",
                                    "resolve",
                                    "q",
                                    f.queue.name(),
                                    "id",
                                    "su-1",
                                    "verdict",
                                    "not-sent",
                                    "evidence",
                                    "receiver has nothing",
                                    "csrf",
                                    tab2.token(f.queue.name())))
                    .body());
            assertEquals("Done", heading(alice.submit(sent).body()));
            HttpResponse<String> loser = tab2.submit(notSent);
            assertEquals("Nothing done", heading(loser.body()), loser.body());
            assertTrue(result(loser.body()).contains("your verdict \"not sent\" was not applied"), loser.body());
            assertEquals(Sync.COMPLETED, f.state("u-1"));
        }

        @Test
        void noVerdictIsPreselectedForAnUnknownSend() throws Exception {
            open(true, 50, 4);
            Client operator = new Client(f.base(), "operator");
            String row = row(operator.get("queue?q=" + f.queue.name()).body(), "su-1");
            Matcher select = Pattern.compile("<select name=\"verdict\"[^>]*>(.*?)</select>", Pattern.DOTALL)
                    .matcher(row);
            assertTrue(select.find(), row);
            assertTrue(select.group().startsWith("<select name=\"verdict\" required>"), select.group());
            Matcher options = Pattern.compile("<option([^>]*)>").matcher(select.group(1));
            assertTrue(options.find());
            assertEquals(" value=\"\" disabled selected", options.group(1), "the first option is no answer");
            while (options.find()) {
                assertFalse(options.group(1).contains("selected"), options.group());
            }
            // the form as a browser would send it without a choice: refused, the row stays unknown
            Map<String, String> fields = hiddenFields(row);
            fields.put("evidence", "receiver says nothing");
            fields.put("verdict", "");
            assertEquals(400, operator.post("action", fields).statusCode());
            assertEquals(Sync.UNKNOWN, f.state("u-1"));
        }

        @Test
        void notSentForASendInQuarantineNeedsASecondTickAndWarns() throws Exception {
            open(true, 50, 4);
            f.insert("u-q", Sync.UNKNOWN, 1, "timeout after send", "q");
            String later = f.db.kind() == dev.baton.testservers.DatabaseKind.POSTGRES
                    ? "clock_timestamp() + interval '1 hour'"
                    : "TIMESTAMPADD(HOUR, 1, UTC_TIMESTAMP(6))";
            f.db.execute("UPDATE " + f.table + " SET lease_until = " + later + " WHERE id = 'u-q'");
            Client operator = new Client(f.base(), "operator");
            String row = row(operator.get("queue?q=" + f.queue.name()).body(), "su-q");
            assertTrue(row.contains("(in quarantine)"), row);
            assertTrue(row.contains("<input type=\"checkbox\" name=\"gone\" value=\"1\">"), row);
            Map<String, String> fields = hiddenFields(row);
            fields.put("verdict", "not-sent");
            fields.put("evidence", "receiver has nothing");
            HttpResponse<String> refused = operator.post("action", fields);
            assertEquals(400, refused.statusCode(), refused.body());
            assertTrue(refused.body().contains("still in quarantine"), refused.body());
            assertEquals(Sync.UNKNOWN, f.state("u-q"));
            fields.put("gone", "1");
            HttpResponse<String> confirm = operator.post("action", fields);
            assertTrue(confirm.body().contains("Warning: this send is still in quarantine"), confirm.body());
            assertEquals(
                    "Done",
                    heading(operator.submit(confirmation(confirm.body())).body()));
            assertEquals(Sync.PENDING, f.state("u-q"));
        }

        @Test
        void aMayHaveBeenSentRowsOwnRequeueNeedsTheTick() throws Exception {
            open(true, 50, 4);
            f.insert("d-maybe", Sync.FAILED, 2, dev.baton.DeadRow.MAY_HAVE_BEEN_SENT + "timeout after send", "m");
            Client operator = new Client(f.base(), "operator");
            String row = row(operator.get("queue?q=" + f.queue.name()).body(), "sd-maybe");
            assertTrue(row.contains("<input type=\"checkbox\" name=\"force\" value=\"1\">"), row);
            // the row's button pressed without the tick: nothing moves, and the page says why
            HttpResponse<String> unticked = operator.act(hiddenFields(row));
            assertEquals("Nothing done", heading(unticked.body()), unticked.body());
            assertTrue(result(unticked.body()).contains("may have been sent already, so it stays dead"));
            assertEquals(Sync.FAILED, f.state("d-maybe"));
            // ticked: the confirmation says what it means, and the row moves
            Map<String, String> ticked = hiddenFields(row);
            ticked.put("force", "1");
            Map<String, String> confirm =
                    confirmation(operator.post("action", ticked).body());
            HttpResponse<String> done = operator.submit(confirm);
            assertEquals("Done", heading(done.body()), done.body());
            assertEquals(Sync.PENDING, f.state("d-maybe"));
        }

        @Test
        void withoutAnAuthenticatorTheConsoleRefusesToStart() {
            ConfigurationException e = assertThrows(ConfigurationException.class, () -> BatonConsole.builder()
                    .queue(ConsoleFixture.queue(dev.baton.Baton.using(database().dataSource()), "cs_never_created"))
                    .operate(true)
                    .build());
            assertNotNull(e.getMessage());
            assertTrue(e.getMessage().contains("authenticator"), e.getMessage());
        }
    }
}
