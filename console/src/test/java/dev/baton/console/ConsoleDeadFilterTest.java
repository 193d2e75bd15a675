package dev.baton.console;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.baton.console.ConsoleHttpTest.Client;
import dev.baton.testkit.DatabaseSuite;
import dev.baton.testkit.compat.Sync;
import dev.baton.testservers.TestServer;
import java.net.URLEncoder;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The dead letters filtered by their error text and shown newest first, over HTTP, on the two local servers: the text
 * is matched as text ({@code %} and {@code _} are no wildcards), ignoring case, length-limited, and a page looks at
 * 10,000 dead rows at most, saying so, with a next page that looks on.
 */
@ParameterizedClass(name = "{0}")
@EnumSource(
        value = TestServer.class,
        names = {"POSTGRES_LOCAL", "MARIADB_LOCAL"})
class ConsoleDeadFilterTest {
    @Parameter
    TestServer server;

    private static final Pattern ROW = Pattern.compile("<tr data-id=\"s([^\"]*)\"");
    private static final Pattern NEXT = Pattern.compile("<a rel=\"next\" data-page=\"dead\" href=\"([^\"]*)\"");

    @Nested
    class Filter extends DatabaseSuite {
        private ConsoleFixture f;

        @AfterEach
        void close() {
            if (f != null) {
                f.close();
                f = null;
            }
        }

        private ConsoleFixture open(int pageSize) {
            f = new ConsoleFixture(database(), "cn2_filter", false, pageSize, b -> {});
            f.seed(5);
            f.insert("k-1", Sync.FAILED, 3, "receiver 422: card declined", "a");
            f.insert("k-2", Sync.FAILED, 3, "RECEIVER 422: Card Declined", "b");
            f.insert("k-3", Sync.FAILED, 3, "100% done_x", "c");
            f.insert("k-4", Sync.FAILED, 3, "1000 donesx", "d");
            f.insert("k-5", Sync.PENDING, 0, "receiver 422 once, pending again", "e");
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
            HttpResponse<String> r =
                    c.get("queue?q=" + URLEncoder.encode(f.queue.name(), StandardCharsets.UTF_8) + query);
            return r;
        }

        private static String find(String text) {
            return "&find=" + URLEncoder.encode(text, StandardCharsets.UTF_8);
        }

        @Test
        void theErrorTextIsMatchedAsTextIgnoringCaseAndOnlyAmongDeadRows() throws Exception {
            open(50);
            Client reader = new Client(f.base(), "reader");
            HttpResponse<String> r = page(reader, find("422: card"));
            assertEquals(200, r.statusCode(), r.body());
            assertEquals(List.of("k-1", "k-2"), ids(r.body()), "both cases, not the pending row");
            assertTrue(r.body().contains("value=\"422: card\""), "the form keeps the text");
            // % and _ match only themselves: "1000 donesx" is no match for "100% done_"
            assertEquals(List.of("k-3"), ids(page(reader, find("100% done_")).body()));
            assertEquals(List.of(), ids(page(reader, find("nothing like this")).body()));
            // without a filter, all of them as before
            assertEquals(9, ids(page(reader, "").body()).size());
        }

        @Test
        void newestFirstAndTheFilterAreKeptAcrossPages() throws Exception {
            open(2);
            Client reader = new Client(f.base(), "reader");
            HttpResponse<String> first = page(reader, "&order=newest");
            assertEquals(List.of("k-4", "k-3"), ids(first.body()), "highest id first");
            Matcher next = NEXT.matcher(first.body());
            assertTrue(next.find(), first.body());
            String href = ConsoleHttpTest.unescape(next.group(1));
            assertTrue(href.contains("order=newest"), href);
            assertEquals(List.of("k-2", "k-1"), ids(reader.get(href).body()));

            HttpResponse<String> filtered = page(reader, find("RECEIVER") + "&order=newest");
            assertEquals(List.of("k-2", "k-1"), ids(filtered.body()));
            Matcher more = NEXT.matcher(filtered.body());
            assertTrue(more.find());
            String href2 = ConsoleHttpTest.unescape(more.group(1));
            assertTrue(href2.contains("find=RECEIVER") && href2.contains("order=newest"), href2);
            // the fixture's other dead rows say "HTTP 500 from the receiver": the next page goes on with them
            List<String> rest = ids(reader.get(href2).body());
            assertEquals(List.of("d-005", "d-004"), rest);
        }

        @Test
        void aTooLongTextOrAnUnknownOrderIs400() throws Exception {
            open(50);
            Client reader = new Client(f.base(), "reader");
            HttpResponse<String> r = page(reader, find("x".repeat(201)));
            assertEquals(400, r.statusCode());
            assertTrue(r.body().contains("longer than 200"), r.body());
            assertEquals(200, page(reader, find("x".repeat(200))).statusCode());
            assertEquals(400, page(reader, "&order=sideways").statusCode());
        }

        @Test
        void aPageLooksAtTenThousandDeadRowsAtMostAndTheNextLooksOn() throws Exception {
            open(50);
            try (Connection c = f.db.connect();
                    PreparedStatement ps = c.prepareStatement("INSERT INTO " + f.table
                            + " (id, sync_status, attempts, last_error) VALUES (?, ?, 1, 'HTTP 503')")) {
                for (int i = 0; i < 10_050; i++) {
                    ps.setString(1, String.format("f-%05d", i));
                    ps.setInt(2, Sync.FAILED.code());
                    ps.addBatch();
                }
                ps.executeBatch();
            }
            f.insert("z-far", Sync.FAILED, 9, "receiver 409: duplicate order", "z");
            Client reader = new Client(f.base(), "reader");
            HttpResponse<String> first = page(reader, find("409"));
            assertEquals(List.of(), ids(first.body()), "the match is beyond the first 10,000 dead rows");
            assertTrue(first.body().contains("Looked at 10000 dead rows"), first.body());
            assertTrue(first.body().contains("the next page looks on"), first.body());
            Matcher next = NEXT.matcher(first.body());
            assertTrue(next.find(), first.body());
            HttpResponse<String> second = reader.get(ConsoleHttpTest.unescape(next.group(1)));
            assertEquals(List.of("z-far"), ids(second.body()));
            assertFalse(NEXT.matcher(second.body()).find(), "nothing beyond");
        }
    }
}
