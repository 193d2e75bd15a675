package dev.baton.console;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.baton.ConfigurationException;
import dev.baton.Outcome;
import dev.baton.Worker;
import dev.baton.testkit.DatabaseSuite;
import dev.baton.testkit.compat.Sync;
import dev.baton.testservers.TestServer;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * What needs attention, said on the overview in words: dead rows, unknown sends, paused workers, an oldest eligible
 * row older than the threshold; a line at the top naming the queues and why, and a marker in each such row.
 */
@ParameterizedClass(name = "{0}")
@EnumSource(
        value = TestServer.class,
        names = {"POSTGRES_LOCAL", "MARIADB_LOCAL"})
class ConsoleAttentionTest {
    @Parameter
    TestServer server;

    /** The summary line at the top of the overview, tags removed and entities read. */
    static String summary(String body) {
        Matcher m = Pattern.compile("<p id=\"attention\"[^>]*>(.*?)</p>", Pattern.DOTALL)
                .matcher(body);
        assertTrue(m.find(), "no attention line on the page: " + body);
        return ConsoleHttpTest.unescape(m.group(1).replaceAll("<[^>]*>", ""));
    }

    /** The first cell of the overview row of {@code queue}, tags removed. */
    static String marker(String body, String queue) {
        int at = body.indexOf("<tr data-queue=\"" + queue + "\"");
        assertTrue(at >= 0, "no row of " + queue);
        String row = body.substring(at, body.indexOf("</td>", at));
        return ConsoleHttpTest.unescape(row.replaceAll("<[^>]*>", " ")).replaceAll("\\s+", " ");
    }

    @Nested
    class Overview extends DatabaseSuite {
        private ConsoleFixture f;

        @AfterEach
        void close() {
            if (f != null) {
                f.close();
                f = null;
            }
        }

        @Test
        void aQueueWithDeadRowsAndUnknownSendsIsNamedWithItsReasons() throws Exception {
            f = new ConsoleFixture(database(), false, 50, b -> {});
            f.seed(4); // 4 dead, 2 unknown, 3 pending just made
            f.console.sample();
            String body = new ConsoleHttpTest.Client(f.base(), "reader").get("").body();
            String line = summary(body);
            assertEquals("Needs attention: " + f.queue.name() + ": 4 dead, 2 unknown sends.", line);
            assertTrue(body.contains("<tr data-queue=\"" + f.queue.name() + "\" class=\"attention\">"), body);
            assertTrue(
                    marker(body, f.queue.name()).contains("Needs attention: 4 dead, 2 unknown sends"),
                    marker(body, f.queue.name()));
            // the queue's own page carries the marker too
            String page = new ConsoleHttpTest.Client(f.base(), "reader")
                    .get("queue?q=" + f.queue.name())
                    .body();
            assertTrue(marker(page, f.queue.name()).contains("Needs attention: 4 dead, 2 unknown sends"));
        }

        @Test
        void aQuietQueueNeedsNothingAndTheLineSaysSo() throws Exception {
            f = new ConsoleFixture(database(), false, 50, b -> {});
            f.insert("p-1", Sync.PENDING, 0, null, "x");
            f.console.sample();
            String body = new ConsoleHttpTest.Client(f.base(), "reader").get("").body();
            assertTrue(summary(body).startsWith("Nothing needs attention"), summary(body));
            assertTrue(summary(body).contains("older than 5 min"), summary(body));
            assertFalse(body.contains("class=\"attention\""), body);
            assertFalse(marker(body, f.queue.name()).contains("Needs attention"));
        }

        @Test
        void anOldestEligibleRowOlderThanTheThresholdNeedsAttention() throws Exception {
            f = new ConsoleFixture(database(), false, 50, b -> b.attentionAge(Duration.ofMinutes(5)));
            f.insert("p-1", Sync.PENDING, 0, null, "x");
            f.db.execute("UPDATE " + f.table + " SET created_at = created_at - INTERVAL '10' MINUTE");
            f.console.sample();
            String body = new ConsoleHttpTest.Client(f.base(), "reader").get("").body();
            assertEquals(
                    "Needs attention: " + f.queue.name() + ": oldest eligible row 10 min old (over 5 min).",
                    summary(body));
            f.close();
            // the same age under a threshold of an hour is no reason
            f = new ConsoleFixture(database(), false, 50, b -> b.attentionAge(Duration.ofHours(1)));
            f.insert("p-1", Sync.PENDING, 0, null, "x");
            f.db.execute("UPDATE " + f.table + " SET created_at = created_at - INTERVAL '10' MINUTE");
            f.console.sample();
            body = new ConsoleHttpTest.Client(f.base(), "reader").get("").body();
            assertTrue(summary(body).startsWith("Nothing needs attention"), summary(body));
            assertTrue(summary(body).contains("older than 60 min"), summary(body));
        }

        @Test
        void aPausedQueueNeedsAttention() throws Exception {
            List<Worker> workers = new CopyOnWriteArrayList<>();
            f = new ConsoleFixture(database(), false, 50, b -> b.workers(() -> workers));
            Worker worker = f.baton
                    .worker(f.queue)
                    .pollInterval(Duration.ofMillis(50), Duration.ofMillis(200))
                    .handle(row -> Outcome.complete(Sync.COMPLETED))
                    .start();
            try {
                workers.add(worker);
                ConsoleHttpTest.Client reader = new ConsoleHttpTest.Client(f.base(), "reader");
                assertTrue(summary(reader.get("").body()).startsWith("Nothing needs attention"));
                worker.pause();
                String body = reader.get("").body();
                assertEquals("Needs attention: " + f.queue.name() + ": paused in this process.", summary(body));
                assertTrue(marker(body, f.queue.name()).contains("Needs attention: paused in this process"));
            } finally {
                worker.close();
            }
        }
    }

    @Test
    void theThresholdIsBounded() {
        for (Duration bad : List.of(Duration.ZERO, Duration.ofSeconds(9), Duration.ofDays(8), Duration.ofSeconds(-5))) {
            ConfigurationException e = assertThrows(
                    ConfigurationException.class, () -> BatonConsole.builder().attentionAge(bad));
            assertTrue(e.getMessage().startsWith("attentionAge must be 10 seconds to 7 days, was "), e.getMessage());
        }
        assertThrows(NullPointerException.class, () -> BatonConsole.builder().attentionAge(null));
        BatonConsole.builder().attentionAge(Duration.ofSeconds(10)).attentionAge(Duration.ofDays(7));
    }
}
