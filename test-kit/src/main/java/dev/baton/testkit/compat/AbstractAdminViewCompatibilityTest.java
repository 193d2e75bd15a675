package dev.baton.testkit.compat;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.baton.AdminAction;
import dev.baton.Baton;
import dev.baton.BatonListener;
import dev.baton.BlockedKey;
import dev.baton.BulkResult;
import dev.baton.ClaimQueue;
import dev.baton.ClaimedRow;
import dev.baton.ConfigurationException;
import dev.baton.DeadLetters;
import dev.baton.EnqueueResult;
import dev.baton.LeaseResult;
import dev.baton.Message;
import dev.baton.Outbox;
import dev.baton.Outcome;
import dev.baton.TransitionResult;
import dev.baton.UnknownRow;
import dev.baton.UnknownSends;
import dev.baton.testkit.DatabaseSuite;
import dev.baton.testservers.TestDatabase;
import dev.baton.testservers.TestDatabases;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The admin views ({@link DeadLetters}, {@link UnknownSends}, {@link dev.baton.BlockedKeys}) against real servers: pages
 * and counts bounded in their SQL, limits and principals refused before any SQL, every action guarded (of two
 * operators requeueing one row at once exactly one moves it) and reported to the listeners with who, what, which row,
 * the result and when (the database clock). Lean: a few rows per test.
 */
public abstract class AbstractAdminViewCompatibilityTest extends DatabaseSuite {
    private static final Duration LEASE = Duration.ofSeconds(60);

    private final List<AdminAction> heard = new CopyOnWriteArrayList<>();
    private TestDatabase db;
    private Baton baton;
    private JobsTable jobs;
    private ClaimQueue<Sync> queue;

    @Override
    protected void setUp() {
        db = database();
        baton = Baton.builder(db.dataSource())
                .listener(new BatonListener() {
                    @Override
                    public void onAdminAction(AdminAction action) {
                        heard.add(action);
                    }
                })
                .build();
    }

    @BeforeEach
    void freshTable() {
        heard.clear();
        jobs = JobsTable.create(db, "admin", true);
        queue = jobs.queue(baton, LEASE);
    }

    @AfterEach
    void dropTable() {
        jobs.drop();
    }

    /** Claims rows 1..n and dead-letters each with reason {@code "r<id>"}. */
    private void deadRows(int n) {
        jobs.insert(1, n, Payment.PAID);
        for (ClaimedRow<Sync> r : queue.claim(n)) {
            queue.apply(r, Outcome.deadLetter("r" + r.longId()));
        }
    }

    @Test
    void aCountStopsAtItsLimitAndSaysSoExactlyBelowIt() {
        deadRows(7);
        DeadLetters<Sync> dead = queue.deadLetters();
        assertEquals(7, dead.count(100_000));
        assertEquals(7, dead.count(8));
        assertEquals(7, dead.count(7));
        assertEquals(5, dead.count(5), "at least 5");
        assertEquals(1, dead.count(1));
        assertEquals(List.of(4L, 5L, 6L), ids(dead.listAfter(3L, 3)));
        assertEquals(7, dead.list(1000).size());
    }

    @Test
    void limitsAndPrincipalsAreRefusedWithATypedErrorBeforeAnySql() {
        ClaimQueue<Sync> sending = jobs.sendingQueue(baton, LEASE);
        String table = TestDatabases.uniqueName("outbox");
        assertTrue(baton.ownTables().createOutboxTable(table));
        Outbox outbox = baton.outbox(table);
        db.dropTableIfExists(table);
        jobs.drop(); // any SQL would now fail with a DataAccessException
        for (int page : new int[] {0, -1, 1001}) {
            assertThrows(ConfigurationException.class, () -> queue.deadLetters().list(page));
            assertThrows(ConfigurationException.class, () -> queue.deadLetters().listAfter(1L, page));
            assertThrows(
                    ConfigurationException.class, () -> sending.unknownSends().list(page));
            assertThrows(
                    ConfigurationException.class, () -> sending.unknownSends().listAfter(1L, page));
            assertThrows(
                    ConfigurationException.class, () -> sending.unknownSends().ready(page));
            assertThrows(ConfigurationException.class, () -> outbox.keys().list(page));
            assertThrows(ConfigurationException.class, () -> outbox.keys().listAfter(1L, page));
        }
        for (int count : new int[] {0, -1, 100_001}) {
            assertThrows(ConfigurationException.class, () -> queue.deadLetters().count(count));
            assertThrows(
                    ConfigurationException.class, () -> sending.unknownSends().count(count));
            assertThrows(ConfigurationException.class, () -> outbox.keys().count(count));
        }
        for (String who : new String[] {"", "  ", "x".repeat(201)}) {
            assertThrows(ConfigurationException.class, () -> queue.deadLetters().as(who));
            assertThrows(
                    ConfigurationException.class, () -> sending.unknownSends().as(who));
        }
        assertThrows(ConfigurationException.class, () -> queue.unknownSends().resolveNotSent(1L), "no unknown state");
        assertEquals(List.of(), queue.unknownSends().list(10), "a queue without an unknown state has none");
        assertEquals(List.of(), heard, "nothing reached the database, nothing is reported");
        jobs = JobsTable.create(db, "admin", true); // for the @AfterEach
    }

    /** Two operators requeue each of several rows at once: one Applied per row, and both actions are audited. */
    @Test
    void ofTwoOperatorsRequeueingOneRowAtOnceExactlyOneMovesItAndBothAreAudited() throws Exception {
        int n = 8;
        deadRows(n);
        Baton other = Baton.builder(db.dataSource())
                .listener(new BatonListener() {
                    @Override
                    public void onAdminAction(AdminAction action) {
                        heard.add(action);
                    }
                })
                .build();
        List<DeadLetters<Sync>> operators = List.of(
                queue.deadLetters().as("alice"),
                jobs.queue(other, LEASE).deadLetters().as("bob"));
        for (long id = 1; id <= n; id++) {
            long row = id;
            List<TransitionResult<Sync>> results =
                    Races.run(2, i -> operators.get(i).requeue(row));
            assertEquals(1, Races.count(results, TransitionResult.Applied.class), "row " + id + ": " + results);
            assertEquals(1, Races.count(results, TransitionResult.AlreadyInTarget.class), "row " + id + ": " + results);
            assertEquals(Sync.PENDING, jobs.sync(id));
        }
        assertEquals(0, queue.deadLetters().count(100));
        assertEquals(2 * n, heard.size(), heard.toString());
        for (long id = 1; id <= n; id++) {
            long row = id;
            List<AdminAction> forRow = heard.stream()
                    .filter(a -> ((Number) a.id()).longValue() == row)
                    .toList();
            assertEquals(2, forRow.size(), forRow.toString());
            assertEquals(1, forRow.stream().filter(AdminAction::moved).count(), forRow.toString());
            assertEquals(
                    List.of("alice", "bob"),
                    forRow.stream().map(AdminAction::principal).sorted().toList());
            for (AdminAction a : forRow) {
                assertEquals(AdminAction.Kind.REQUEUE, a.kind());
                assertEquals(queue.name(), a.queue());
                assertNotNull(a.at(), "stamped by the database clock");
                assertInstanceOf(TransitionResult.class, a.result());
            }
        }
    }

    @Test
    void aBoundedRequeueAndARequeueOfNothingAreAuditedWithTheirCounts() {
        deadRows(5);
        DeadLetters<Sync> dead = queue.deadLetters().as("carol");
        assertEquals(new BulkResult(3, 1), dead.requeueAll(3));
        assertEquals(new TransitionResult.NotFound<>(99L), dead.requeue(99L));
        assertEquals(2, heard.size(), heard.toString());
        AdminAction bulk = heard.get(0);
        assertEquals(AdminAction.Kind.REQUEUE_ALL, bulk.kind());
        assertNull(bulk.id());
        assertEquals(3, bulk.rows());
        assertEquals("carol", bulk.principal());
        AdminAction none = heard.get(1);
        assertEquals(0, none.rows());
        assertFalse(none.moved());
        assertEquals(new TransitionResult.NotFound<>(99L), none.result());
        assertNull(queue.deadLetters().principal(), "the queue's own view names nobody");
    }

    /**
     * Unknown sends are listed in quarantine and out of it (with attempts, error and the quarantine's end), counted,
     * and resolved sent, not sent and given up through the view, each once and each audited.
     */
    @Test
    void unknownSendsAreListedWithTheirQuarantineAndResolvedOnceEach() {
        ClaimQueue<Sync> sending = jobs.sendingQueue(baton, LEASE);
        jobs.insert(1, 4, Payment.PAID);
        List<ClaimedRow<Sync>> rows = new ArrayList<>(sending.claim(4));
        rows.sort(Comparator.comparingLong(ClaimedRow::longId));
        for (ClaimedRow<Sync> r : rows) {
            assertTrue(sending.markSending(r).done());
            sending.apply(r, Outcome.unknown("timeout " + r.longId()));
        }
        // rows 2..4 out of quarantine (their sender is known gone); row 1 still in it
        db.execute("UPDATE " + jobs.name() + " SET lease_until = created_at WHERE id > 1");
        UnknownSends<Sync> unknown = sending.unknownSends().as("dave");
        List<UnknownRow> listed = unknown.list(10);
        assertEquals(
                List.of(1L, 2L, 3L, 4L), listed.stream().map(UnknownRow::longId).toList());
        UnknownRow first = listed.get(0);
        assertFalse(first.ready(), "in quarantine");
        assertEquals(1, first.attempts());
        assertNotNull(first.reconcilableAt());
        assertTrue(listed.get(1).ready());
        assertTrue(listed.get(1).reconcilableAt().isBefore(first.reconcilableAt()), listed.toString());
        assertEquals(
                List.of(3L, 4L),
                unknown.listAfter(2L, 10).stream().map(UnknownRow::longId).toList());
        assertEquals(List.of(2L, 3L, 4L), unknown.ready(10, Long.class));
        assertEquals(4, unknown.count(100));
        assertEquals(3, unknown.count(3));

        assertEquals(
                new LeaseResult.Done<>(2L, Sync.COMPLETED),
                unknown.resolveSent(2L, Outcome.<Sync>complete(Sync.COMPLETED).set("third_party_guid", "g2")));
        assertEquals("g2", jobs.get(2, "third_party_guid"));
        assertEquals(new LeaseResult.Done<>(3L, Sync.PENDING), unknown.resolveNotSent(3L));
        assertEquals(new LeaseResult.Done<>(4L, Sync.FAILED), unknown.deadLetter(4L, "the sink cannot tell"));
        assertTrue(sending.deadLetters().list(10).get(0).mayHaveBeenSent());
        assertInstanceOf(LeaseResult.LeaseLost.class, unknown.resolveNotSent(2L), "resolved once");
        assertEquals(new LeaseResult.Done<>(1L, Sync.UNKNOWN), unknown.resolve(1L, null), "can't tell: untouched");
        assertEquals(1, unknown.count(100));

        assertEquals(
                List.of(
                        AdminAction.Kind.RESOLVE_SENT,
                        AdminAction.Kind.RESOLVE_NOT_SENT,
                        AdminAction.Kind.DEAD_LETTER,
                        AdminAction.Kind.RESOLVE_NOT_SENT),
                heard.stream().map(AdminAction::kind).toList(),
                "the verdict that writes nothing is not reported");
        assertEquals(
                List.of(1L, 1L, 1L, 0L), heard.stream().map(AdminAction::rows).toList());
        Instant at = heard.get(0).at();
        assertNotNull(at);
        for (AdminAction a : heard) {
            assertEquals("dave", a.principal());
            assertEquals(sending.name(), a.queue());
        }
    }

    /**
     * With per-key ordering, each key held by a dead message is listed once, by its first dead message; paged by that
     * id, counted; a requeue of the holder hands the key to the next dead one. Without ordering, no key is held.
     */
    @Test
    void theKeysHeldByDeadMessagesAreListedOnceEachByTheirFirstDeadMessage() {
        String table = TestDatabases.uniqueName("outbox");
        assertTrue(baton.ownTables().createOutboxTable(table));
        try {
            Outbox outbox = baton.outbox(table);
            long a1 = enqueue(outbox, "a");
            long a2 = enqueue(outbox, "a");
            long b1 = enqueue(outbox, "b");
            long c1 = enqueue(outbox, "c");
            enqueue(outbox, "c");
            for (ClaimedRow<Outbox.Status> r : outbox.queue().claim(10)) { // a1, b1, c1: one per key
                outbox.queue()
                        .apply(
                                r,
                                r.longId() == b1
                                        ? Outcome.complete(Outbox.Status.DELIVERED)
                                        : Outcome.deadLetter("broker said no"));
            }
            db.execute("UPDATE " + table + " SET status = " + Outbox.Status.DEAD.code() + " WHERE id = " + a2);
            List<BlockedKey<Outbox.Status>> keys = outbox.keys().list(10);
            assertEquals(List.of("a", "c"), keys.stream().map(BlockedKey::key).toList(), keys.toString());
            assertEquals(List.of(a1, c1), keys.stream().map(BlockedKey::longId).toList());
            assertEquals(Outbox.Status.DEAD, keys.get(0).state());
            assertEquals("broker said no", keys.get(0).lastError());
            assertEquals(1, keys.get(0).attempts());
            assertEquals(
                    List.of("c"),
                    outbox.keys().listAfter(a1, 10).stream()
                            .map(BlockedKey::key)
                            .toList());
            assertEquals(
                    List.of("a"),
                    outbox.keys().list(1).stream().map(BlockedKey::key).toList());
            assertEquals(2, outbox.keys().count(100));
            assertEquals(1, outbox.keys().count(1));

            assertInstanceOf(
                    TransitionResult.Applied.class,
                    outbox.deadLetters().as("erin").requeue(a1));
            List<BlockedKey<Outbox.Status>> after = outbox.keys().list(10);
            assertEquals(List.of(a2, c1), after.stream().map(BlockedKey::longId).toList(), "a is held by a2 now");

            Outbox unordered = baton.outbox(table, Outbox.Options.defaults().orderedPerKey(false));
            assertEquals(List.of(), unordered.keys().list(10));
            assertEquals(0, unordered.keys().count(10));
        } finally {
            db.dropTableIfExists(table);
        }
    }

    private static long enqueue(Outbox outbox, String key) {
        return ((EnqueueResult.Enqueued) outbox.enqueue(Message.of("t", "{}").key(key))).id();
    }

    private static List<Long> ids(List<dev.baton.DeadRow> rows) {
        return rows.stream().map(dev.baton.DeadRow::longId).toList();
    }
}
