package dev.baton.testkit.compat;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.baton.Baton;
import dev.baton.ConfigurationException;
import dev.baton.IllegalKeyException;
import dev.baton.Inbox;
import dev.baton.InvalidIdentifierException;
import dev.baton.ReceiveResult;
import dev.baton.testkit.DatabaseSuite;
import dev.baton.testservers.TestDatabase;
import dev.baton.testservers.TestDatabases;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The behaviour of {@link Inbox}, defined once and run by every dialect module against real servers.
 * A dialect runs it as a nested class of its one parameterized test over its servers (see
 * {@link dev.baton.testkit.DatabaseSuite}):
 *
 * <pre>
 * &#64;Nested class Inbox extends AbstractInboxCompatibilityTest {}</pre>
 *
 * Each test class works in a table of its own (random suffix).
 */
public abstract class AbstractInboxCompatibilityTest extends DatabaseSuite {
    /** Threads racing in the concurrency tests. */
    protected static final int RACERS = 50;

    private TestDatabase db;
    private Baton baton;
    private String table;
    private Inbox inbox;
    private final List<String> tables = new ArrayList<>();

    @Override
    protected void setUp() {
        db = database();
        baton = Baton.using(db.dataSource());
        table = TestDatabases.uniqueName("inbox");
        tables.add(table);
        assertTrue(baton.ownTables().createInboxTable(table), "created");
        assertFalse(baton.ownTables().createInboxTable(table), "exists: nothing to do");
        inbox = baton.inbox(table);
    }

    @Override
    protected void tearDown() {
        for (String t : tables) {
            db.dropTableIfExists(t);
        }
    }

    @BeforeEach
    void clean() {
        db.execute("DELETE FROM " + table);
    }

    @Test
    void schemaHelperValidatesNames() {
        assertThrows(InvalidIdentifierException.class, () -> baton.ownTables().createInboxTable("inbox; DROP TABLE x"));
        String longest = "i".repeat(baton.dialect().traits().maxIdentifierLength() - "_received_at".length());
        baton.ownTables().inboxDdl(longest);
        assertThrows(InvalidIdentifierException.class, () -> baton.ownTables().inboxDdl(longest + "i"));
        assertThrows(InvalidIdentifierException.class, () -> baton.inbox("in box"));
        assertThrows(InvalidIdentifierException.class, () -> baton.inbox(null));
    }

    @Test
    void firstDeliveryThenDuplicates() {
        assertEquals(new ReceiveResult.FirstDelivery("gateway", "evt_1"), inbox.receive("gateway", "evt_1"));
        assertEquals(new ReceiveResult.Duplicate("gateway", "evt_1"), inbox.receive("gateway", "evt_1"));
        assertEquals(new ReceiveResult.Duplicate("gateway", "evt_1"), inbox.receive("gateway", "evt_1"));
        assertTrue(inbox.receive("other-gateway", "evt_1").first(), "the source is part of the key");
        assertTrue(inbox.receive("gateway", "EVT_1").first(), "ids compare exactly");
        assertTrue(inbox.receive("Gateway", "evt_1").first(), "sources compare exactly");
        assertTrue(inbox.receive("gateway", "évènement-🔔").first());
        assertFalse(inbox.receive("gateway", "évènement-🔔").first());
        assertEquals(5, count());
    }

    @Test
    void fiftyConcurrentReceivesHaveExactlyOneFirstDelivery() throws Exception {
        for (int round = 0; round < 5; round++) {
            String id = "evt-race-" + round;
            List<ReceiveResult> results = Races.run(RACERS, i -> inbox.receive("gateway", id));
            assertEquals(1, Races.count(results, ReceiveResult.FirstDelivery.class), results.toString());
            assertEquals(RACERS - 1, Races.count(results, ReceiveResult.Duplicate.class), results.toString());
        }
        assertEquals(5, count());
    }

    @Test
    void fiftyConcurrentCallerTransactionsHaveExactlyOneFirstDelivery() throws Exception {
        for (int round = 0; round < 3; round++) {
            String id = "evt-tx-race-" + round;
            List<ReceiveResult> results = Races.run(RACERS, i -> {
                // the caller's transaction is the caller's to retry: on a multi-primary cluster another node's
                // commit aborts it (a deadlock, at any statement or at COMMIT), as a deadlock may anywhere
                for (int attempt = 1; ; attempt++) {
                    try (Connection c = db.dataSource().getConnection()) {
                        c.setAutoCommit(false);
                        try {
                            ReceiveResult r = inbox.receive(c, "gateway", id);
                            c.commit();
                            return r;
                        } catch (RuntimeException | SQLException e) {
                            c.rollback();
                            if (attempt >= 20 || !baton.isTransient(e)) {
                                throw e;
                            }
                        } finally {
                            c.setAutoCommit(true);
                        }
                    }
                }
            });
            assertEquals(1, Races.count(results, ReceiveResult.FirstDelivery.class), results.toString());
        }
        assertEquals(3, count());
    }

    @Test
    void callerTransactionCommitsAndRollsBackTheDelivery() throws SQLException {
        try (Connection c = db.dataSource().getConnection()) {
            c.setAutoCommit(false);
            assertTrue(inbox.receive(c, "gateway", "evt_rollback").first());
            assertFalse(inbox.receive(c, "gateway", "evt_rollback").first(), "seen within the transaction");
            c.rollback();
            c.setAutoCommit(true);
        }
        assertEquals(0, count(), "rolled back with the caller");
        assertTrue(inbox.receive("gateway", "evt_rollback").first(), "a redelivery is first again");

        try (Connection c = db.dataSource().getConnection()) {
            c.setAutoCommit(false);
            // a duplicate leaves the transaction usable (on PostgreSQL a failed statement would abort it)
            assertEquals(
                    new ReceiveResult.Duplicate("gateway", "evt_rollback"),
                    inbox.receive(c, "gateway", "evt_rollback"));
            assertTrue(inbox.receive(c, "gateway", "evt_commit").first());
            c.commit();
            c.setAutoCommit(true);
        }
        assertFalse(inbox.receive("gateway", "evt_commit").first(), "committed with the caller");
        assertEquals(2, count());
    }

    @Test
    void deleteOlderThanRemovesOnlyOldDeliveriesInBatches() throws SQLException {
        int n = 1201; // more than two batches of 500
        try (Connection c = db.dataSource().getConnection()) {
            c.setAutoCommit(false);
            for (int i = 0; i < n; i++) {
                assertTrue(inbox.receive(c, "gateway", "old-" + i).first());
            }
            c.commit();
            c.setAutoCommit(true);
        }
        assertEquals(0, inbox.deleteOlderThan(Duration.ofHours(1)), "nothing is an hour old");
        Inbox later = Baton.builder(db.dataSource())
                .dialect(new ShiftedClockDialect(
                        baton.dialect(), Duration.ofHours(2).toMillis()))
                .build()
                .inbox(table);
        long deleted = 0;
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20); // a test timeout; ages are the database's
        while (deleted < n && System.nanoTime() < deadline) {
            long batch = later.deleteOlderThan(Duration.ofHours(1));
            deleted += batch;
            if (batch == 0) {
                pause();
            }
        }
        assertEquals(n, deleted);
        assertEquals(0, count());
        assertTrue(inbox.receive("gateway", "old-0").first(), "a deleted record no longer deduplicates");

        // a record deleted between a lost reply and its retry would let the retry receive the message again
        assertThrows(ConfigurationException.class, () -> inbox.deleteOlderThan(Duration.ofMillis(1)));
        assertThrows(ConfigurationException.class, () -> inbox.deleteOlderThan(Inbox.MIN_DELETE_AGE.minusMillis(1)));
        assertThrows(ConfigurationException.class, () -> inbox.deleteOlderThan(Duration.ZERO));
        assertThrows(ConfigurationException.class, () -> inbox.deleteOlderThan(Duration.ofMillis(-5)));
        assertThrows(ConfigurationException.class, () -> inbox.deleteOlderThan(Duration.ofDays(3651)));
        assertThrows(NullPointerException.class, () -> inbox.deleteOlderThan(null));
    }

    @Test
    void badInputIsRefusedBeforeAnySql() {
        List<String> bad =
                List.of("", " ", "\t\n", " evt", "evt ", "ev\u0000t", "evt\r", "\uDBFF", "e\u2003", "x".repeat(256));
        for (String b : bad) {
            assertThrows(IllegalKeyException.class, () -> inbox.receive(b, "evt"), b);
            assertThrows(IllegalKeyException.class, () -> inbox.receive("gateway", b), b);
        }
        IllegalKeyException e = assertThrows(IllegalKeyException.class, () -> inbox.receive("gateway", ""));
        assertEquals("message id", e.argument());
        assertThrows(NullPointerException.class, () -> inbox.receive(null, "evt"));
        assertThrows(NullPointerException.class, () -> inbox.receive("gateway", null));
        assertThrows(NullPointerException.class, () -> inbox.receive(null, "gateway", "evt"));
        assertEquals(0, count(), "nothing written");
        assertTrue(inbox.receive("g".repeat(255), "x".repeat(255)).first(), "255 characters fit");
    }

    private int count() {
        try (Connection c = db.connect();
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT COUNT(*) FROM " + table)) {
            rs.next();
            return rs.getInt(1);
        } catch (SQLException e) {
            throw new AssertionError(e);
        }
    }

    private static void pause() {
        try {
            TimeUnit.MILLISECONDS.sleep(5);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }
}
