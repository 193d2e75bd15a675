package dev.baton.console;

import static dev.baton.console.ConsoleHttpTest.form;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.baton.AdminAction;
import dev.baton.BatonListener;
import dev.baton.DeadLetterQuery;
import dev.baton.DeadRowCount;
import dev.baton.console.ConsoleHttpTest.Client;
import dev.baton.testkit.DatabaseSuite;
import dev.baton.testkit.compat.Sync;
import dev.baton.testservers.TestServer;
import java.net.URLEncoder;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Finding dead letters over HTTP on the two local servers: by key, id range and time of death, both orders, previous
 * and next pages by keyset, the count (exact, and a bound), a row's page with every column, and "requeue all that
 * match" (confirmed once, capped, saying what moved and what did not and why, a race lost included).
 */
@ParameterizedClass(name = "{0}")
@EnumSource(
        value = TestServer.class,
        names = {"POSTGRES_LOCAL", "MARIADB_LOCAL"})
class ConsoleDeadSearchTest {
    @Parameter
    TestServer server;

    private static final Pattern ROW = Pattern.compile("<tr data-id=\"s([^\"]*)\"");
    private static final Pattern NEXT = Pattern.compile("<a rel=\"next\" data-page=\"dead\" href=\"([^\"]*)\"");
    private static final Pattern PREV = Pattern.compile("<a rel=\"prev\" data-page=\"dead\" href=\"([^\"]*)\"");
    private static final Instant T0 = Instant.parse("2026-12-03T02:00:00Z");

    @Nested
    class Search extends DatabaseSuite {
        private ConsoleFixture f;

        @AfterEach
        void close() {
            if (f != null) {
                f.close();
                f = null;
            }
        }

        /** Dead rows a-01..a-06 of customer c-1 (dying a minute apart from 02:00), b-01..b-03 of c-2, one pending. */
        private ConsoleFixture open(int pageSize, BatonListener listener) {
            f = new ConsoleFixture(database(), "cn3_search", true, pageSize, true, listener, b -> {});
            for (int i = 1; i <= 6; i++) {
                f.insertDead(
                        String.format("a-%02d", i),
                        "c-1",
                        i % 2 == 0 ? "receiver 422: card declined" : "HTTP 503",
                        T0.plusSeconds(60L * i));
            }
            for (int i = 1; i <= 3; i++) {
                f.insertDead(String.format("b-%02d", i), "c-2", "receiver 422: card declined", T0.plusSeconds(3600));
            }
            f.insert("p-1", Sync.PENDING, 0, "receiver 422 once", "pending");
            return f;
        }

        private List<String> ids(String body) {
            int table = body.indexOf("<table id=\"dead\"");
            String dead = body.substring(table, body.indexOf("</table>", table));
            List<String> out = new ArrayList<>();
            Matcher m = ROW.matcher(dead);
            while (m.find()) {
                out.add(ConsoleHttpTest.unescape(m.group(1)));
            }
            return out;
        }

        private HttpResponse<String> page(Client c, String query) throws Exception {
            return c.get("queue?q=" + URLEncoder.encode(f.queue.name(), StandardCharsets.UTF_8) + query);
        }

        private static String link(Pattern p, String body) {
            Matcher m = p.matcher(body);
            assertTrue(m.find(), "no such link on the page");
            return ConsoleHttpTest.unescape(m.group(1));
        }

        private static String count(String body) {
            Matcher m = Pattern.compile("<p id=\"dead-count\"[^>]*>([^<]*)</p>").matcher(body);
            assertTrue(m.find(), "no count on the page");
            return m.group(1);
        }

        @Test
        void byKeyIdRangeAndTimeOfDeathWithExactCounts() throws Exception {
            open(50, null);
            Client reader = new Client(f.base(), "reader");
            HttpResponse<String> all = page(reader, "");
            assertEquals(9, ids(all.body()).size());
            assertEquals("9 rows are dead.", count(all.body()));

            HttpResponse<String> key = page(reader, "&key=c-2");
            assertEquals(200, key.statusCode(), key.body());
            assertEquals(List.of("b-01", "b-02", "b-03"), ids(key.body()));
            assertEquals("3 rows match this search.", count(key.body()));

            assertEquals(
                    List.of("a-03", "a-04", "a-05"),
                    ids(page(reader, "&idfrom=a-03&idto=a-05").body()));
            assertEquals(
                    List.of("a-05", "a-04", "a-03"),
                    ids(page(reader, "&idfrom=a-03&idto=a-05&order=newest").body()));

            // died from 02:02 (inclusive) to 02:05 (exclusive): a-02, a-03, a-04
            HttpResponse<String> time = page(reader, "&from=2026-12-03T02:02&to=2026-12-03T02:05");
            assertEquals(List.of("a-02", "a-03", "a-04"), ids(time.body()));
            assertEquals("3 rows match this search.", count(time.body()));

            // all at once: key c-1, error 422, died after 02:03
            HttpResponse<String> combined = page(reader, "&key=c-1&find=422&from=2026-12-03T02:03:00");
            assertEquals(List.of("a-04", "a-06"), ids(combined.body()));
            assertTrue(combined.body().contains("value=\"c-1\""), "the form keeps the key");
        }

        @Test
        void badSearchInputIs400BeforeAnyQuery() throws Exception {
            open(50, null);
            Client reader = new Client(f.base(), "reader");
            for (String bad : List.of(
                    "&key=" + "k".repeat(201),
                    "&from=yesterday",
                    "&from=2026-13-45T02:00",
                    "&from=2026-12-03T03:00&to=2026-12-03T02:00",
                    "&order=sideways",
                    "&dead=sa-01&before=sa-03",
                    "&before=l12")) {
                HttpResponse<String> r = page(reader, bad);
                assertEquals(400, r.statusCode(), bad + ": " + r.body());
            }
            assertEquals(9, f.counts().get(Sync.FAILED));
        }

        @Test
        void aQueueWithoutKeyOrTimeColumnRefusesThoseFilters() throws Exception {
            f = new ConsoleFixture(database(), "cn3_search", false, 50, b -> {});
            f.seed(4);
            Client reader = new Client(f.base(), "reader");
            HttpResponse<String> key = page(reader, "&key=c-1");
            assertEquals(400, key.statusCode());
            assertTrue(key.body().contains("no key column"), key.body());
            assertEquals(400, page(reader, "&from=2026-12-03T02:00").statusCode());
            assertFalse(page(reader, "").body().contains("name=\"key\""), "no key field without a key column");
        }

        @Test
        void previousAndNextPagesByKeysetInBothOrders() throws Exception {
            open(2, null);
            Client reader = new Client(f.base(), "reader");
            String first = page(reader, "&key=c-1").body();
            assertEquals(List.of("a-01", "a-02"), ids(first));
            assertFalse(PREV.matcher(first).find(), "no previous page on the first");
            String second = reader.get(link(NEXT, first)).body();
            assertEquals(List.of("a-03", "a-04"), ids(second));
            String third = reader.get(link(NEXT, second)).body();
            assertEquals(List.of("a-05", "a-06"), ids(third));
            String back = reader.get(link(PREV, third)).body();
            assertEquals(List.of("a-03", "a-04"), ids(back), "the previous page of the third is the second");
            String backAgain = reader.get(link(PREV, back)).body();
            assertEquals(List.of("a-01", "a-02"), ids(backAgain));
            assertFalse(PREV.matcher(backAgain).find(), "nothing before the first rows");
            assertEquals(
                    List.of("a-03", "a-04"),
                    ids(reader.get(link(NEXT, backAgain)).body()));

            // newest first, with a filter that scans (the error text)
            String n1 = page(reader, "&find=422&order=newest").body();
            assertEquals(List.of("b-03", "b-02"), ids(n1));
            String n2 = reader.get(link(NEXT, n1)).body();
            assertEquals(List.of("b-01", "a-06"), ids(n2));
            String n3 = reader.get(link(NEXT, n2)).body();
            assertEquals(List.of("a-04", "a-02"), ids(n3));
            assertEquals(List.of("b-01", "a-06"), ids(reader.get(link(PREV, n3)).body()));
        }

        @Test
        void aCountStopsAtItsBoundAndSaysSo() throws Exception {
            open(50, null);
            DeadRowCount exact =
                    f.queue.deadLetters().countMatching(DeadLetterQuery.all().errorContains("422"), 100);
            assertEquals(new DeadRowCount(6, 9, true), exact);
            DeadRowCount bounded =
                    f.queue.deadLetters().countMatching(DeadLetterQuery.all().errorContains("422"), 4);
            assertEquals(new DeadRowCount(2, 4, false), bounded, "a-01..a-04 looked at, a-02 and a-04 match");
        }

        @Test
        void aRowsPageShowsEveryColumnTheWholeErrorAndItsActions() throws Exception {
            open(50, null);
            f.insertDead("long-1", "c-3", "x".repeat(500) + " the end of a long error", T0);
            Client operator = new Client(f.base(), "operator");
            String list = page(operator, "&key=c-3").body();
            assertTrue(list.contains("href=\"row?q="), "each id links to its page");
            HttpResponse<String> r =
                    operator.get("row?q=" + URLEncoder.encode(f.queue.name(), StandardCharsets.UTF_8) + "&id=slong-1");
            assertEquals(200, r.statusCode(), r.body());
            String body = r.body();
            for (String column : List.of(
                    "id",
                    "sync_status",
                    "lease_until",
                    "claim_token",
                    "attempts",
                    "next_attempt_at",
                    "last_error",
                    "created_at",
                    "payload",
                    "customer",
                    "died_at")) {
                assertTrue(body.contains("data-col=\"" + column + "\""), "column " + column + " on the page");
            }
            assertTrue(body.contains(" the end of a long error"), "the whole error, past the table's 300 characters");
            assertTrue(
                    body.contains("State: <strong>FAILED</strong> (a dead letter, died at 2026-12-03 02:00:00.000"),
                    body);
            assertTrue(body.contains("&quot;amount&quot;: 12.5"), "the payload's JSON, indented");
            assertTrue(body.contains("None through this console"), body);

            HttpResponse<String> done = operator.act(form(
                    "op", "requeue", "q", f.queue.name(), "id", "slong-1", "csrf", operator.token(f.queue.name())));
            assertEquals("Done", ConsoleHttpTest.heading(done.body()));
            String after = operator.get(
                            "row?q=" + URLEncoder.encode(f.queue.name(), StandardCharsets.UTF_8) + "&id=slong-1")
                    .body();
            assertTrue(after.contains("State: <strong>PENDING</strong>"), after);
            assertTrue(after.contains("id=\"row-audit\""), after);
            assertTrue(after.contains("Applied (PENDING)"), after);

            String q = "row?q=" + URLEncoder.encode(f.queue.name(), StandardCharsets.UTF_8);
            assertEquals(404, operator.get(q + "&id=snope").statusCode());
            assertEquals(400, operator.get(q + "&id=d1e999999999").statusCode());
            assertEquals(400, operator.get(q).statusCode());
        }

        @Test
        void requeueAllThatMatchIsConfirmedOnceAndSaysWhatMovedAndWhatDidNot() throws Exception {
            // while the console requeues the matching rows one by one, "another operator" requeues b-03 first
            AtomicBoolean raced = new AtomicBoolean();
            BatonListener rival = new BatonListener() {
                @Override
                public void onAdminAction(AdminAction action) {
                    if (raced.compareAndSet(false, true)) {
                        try (Connection c = f.db.connect();
                                PreparedStatement ps = c.prepareStatement(
                                        "UPDATE " + f.table + " SET sync_status = ? WHERE id = 'b-03'")) {
                            ps.setInt(1, Sync.PENDING.code());
                            ps.executeUpdate();
                        } catch (java.sql.SQLException e) {
                            throw new AssertionError(e);
                        }
                    }
                }
            };
            open(50, rival);
            f.insertDead("m-1", "c-2", "may have been sent: receiver 422 after the send", T0);
            Client operator = new Client(f.base(), "operator");
            String page = page(operator, "&find=422&key=c-2").body();
            assertEquals(List.of("b-01", "b-02", "b-03", "m-1"), ids(page));
            assertTrue(page.contains("Requeue all that match"), page);
            assertTrue(page.contains("at most 1,000 rows an action"), page);
            Map<String, String> fields = ConsoleHttpTest.hiddenFields(
                    page.substring(page.lastIndexOf("<form", page.indexOf("value=\"requeue-matching\""))));
            assertEquals("422", fields.get("find"));
            assertEquals("c-2", fields.get("key"));

            HttpResponse<String> confirm = operator.post("action", fields);
            assertEquals(200, confirm.statusCode(), confirm.body());
            assertTrue(
                    confirm.body().contains("error contains &quot;422&quot;, key = &quot;c-2&quot;")
                            && confirm.body().contains("4 match now"),
                    confirm.body());
            Map<String, String> confirmation = ConsoleHttpTest.confirmation(confirm.body());
            HttpResponse<String> result = operator.submit(confirmation);
            assertEquals(200, result.statusCode(), result.body());
            assertEquals("Done", ConsoleHttpTest.heading(result.body()));
            String said = ConsoleHttpTest.result(result.body());
            assertTrue(said.startsWith("Requeued 2 of the 4 dead rows that matched"), said);
            assertTrue(said.contains("1 was not requeued because it was no longer dead"), said);
            assertTrue(said.contains("1 may have been sent already and stayed dead"), said);
            assertEquals(Sync.PENDING, f.state("b-01"));
            assertEquals(Sync.PENDING, f.state("b-02"));
            assertEquals(Sync.PENDING, f.state("b-03"));
            assertEquals(Sync.FAILED, f.state("m-1"));
            assertEquals(List.of("a-01", "a-02", "a-03", "a-04", "a-05", "a-06", "m-1"), f.deadIds());

            // the same confirmation again: 409, nothing more
            HttpResponse<String> again = operator.post("action", confirmation);
            assertEquals(409, again.statusCode());
            assertEquals(List.of("a-01", "a-02", "a-03", "a-04", "a-05", "a-06", "m-1"), f.deadIds());

            // ticked: the may-have-been-sent row moves too
            fields.put("force", "1");
            HttpResponse<String> forced = operator.submit(
                    ConsoleHttpTest.confirmation(operator.post("action", fields).body()));
            assertTrue(
                    ConsoleHttpTest.result(forced.body()).startsWith("Requeued 1 of the 1 dead rows"), forced.body());
            assertEquals(Sync.PENDING, f.state("m-1"));
        }

        @Test
        void requeueAllThatMatchMovesAtMostOneThousandAnAction() throws Exception {
            open(50, null);
            try (Connection c = f.db.connect();
                    PreparedStatement ps = c.prepareStatement(
                            "INSERT INTO " + f.table
                                    + " (id, sync_status, attempts, last_error, customer) VALUES (?, ?, 1, 'HTTP 429', 'c-9')")) {
                for (int i = 0; i < 1_005; i++) {
                    ps.setString(1, String.format("z-%05d", i));
                    ps.setInt(2, Sync.FAILED.code());
                    ps.addBatch();
                }
                ps.executeBatch();
            }
            Client operator = new Client(f.base(), "operator");
            HttpResponse<String> r = operator.act(form(
                    "op",
                    "requeue-matching",
                    "q",
                    f.queue.name(),
                    "find",
                    "429",
                    "csrf",
                    operator.token(f.queue.name())));
            String said = ConsoleHttpTest.result(r.body());
            assertTrue(said.startsWith("Requeued 1000 of the 1000 dead rows that matched"), said);
            assertTrue(said.contains("More rows may match beyond these"), said);
            assertEquals(5 + 9, f.counts().get(Sync.FAILED));
            assertEquals(
                    "5 rows match this search.",
                    count(page(operator, "&find=429").body()));
        }
    }
}
