package dev.baton.testkit.compat;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.baton.Baton;
import dev.baton.BulkResult;
import dev.baton.ClaimQueue;
import dev.baton.ClaimedRow;
import dev.baton.ConfigurationException;
import dev.baton.DeadMessage;
import dev.baton.DeadRow;
import dev.baton.EnqueueResult;
import dev.baton.IllegalVerdictException;
import dev.baton.LeaseResult;
import dev.baton.Message;
import dev.baton.Outbox;
import dev.baton.Outcome;
import dev.baton.RetryPolicy;
import dev.baton.SchemaMismatchException;
import dev.baton.StateMachine;
import dev.baton.TransitionResult;
import dev.baton.Worker;
import dev.baton.testkit.DatabaseSuite;
import dev.baton.testkit.failover.Timing;
import dev.baton.testservers.TestDatabase;
import dev.baton.testservers.TestDatabases;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The operator's dead-letter operations, defined once and run by every dialect module against real servers: dead rows
 * of a claim queue and dead outbox messages listed with their reason (bounded, paged), counted, and requeued by a move
 * guarded by the dead state, so that of two operators exactly one requeues a row.
 */
public abstract class AbstractDeadLetterCompatibilityTest extends DatabaseSuite {
    private static final Duration LEASE = Duration.ofSeconds(60);

    private TestDatabase db;
    private Baton baton;
    private JobsTable jobs;
    private ClaimQueue<Sync> queue;

    @Override
    protected void setUp() {
        db = database();
        baton = Baton.using(db.dataSource());
    }

    @BeforeEach
    void freshTable() {
        jobs = JobsTable.create(db, "dead", true);
        queue = jobs.queue(baton, LEASE);
    }

    @AfterEach
    void dropTable() {
        jobs.drop();
    }

    /** Claims every eligible row and dead-letters those in {@code dead} with reason {@code "r<id>"}, completes the rest. */
    private void deadLetter(long... dead) {
        List<ClaimedRow<Sync>> rows = queue.claim(queue.maxBatchSize());
        for (ClaimedRow<Sync> r : rows) {
            boolean isDead = false;
            for (long d : dead) {
                isDead |= r.longId() == d;
            }
            queue.apply(r, isDead ? Outcome.deadLetter("r" + r.longId()) : Outcome.complete(Sync.COMPLETED));
        }
    }

    private static List<Long> ids(List<DeadRow> rows) {
        List<Long> out = new ArrayList<>();
        for (DeadRow r : rows) {
            out.add(r.longId());
        }
        return out;
    }

    @Test
    void listsDeadRowsLowestIdFirstWithTheirReasonBoundedAndPaged() {
        jobs.insert(1, 6, Payment.PAID);
        deadLetter(2, 3, 5, 6);
        List<DeadRow> first = queue.deadLetters().list(2);
        assertEquals(List.of(2L, 3L), ids(first));
        DeadRow two = first.get(0);
        assertEquals("r2", two.lastError());
        assertEquals(1, two.attempts());
        assertEquals("p2", two.get("payload", String.class));
        assertEquals(List.of(5L, 6L), ids(queue.deadLetters().listAfter(3L, 10)));
        assertEquals(List.of(5L), ids(queue.deadLetters().listAfter(3L, 1)));
        assertEquals(List.of(2L, 3L, 5L, 6L), ids(queue.deadLetters().list(100)));
        assertEquals(4, queue.deadLetters().count(1000));
        assertEquals(4, queue.health().dead());
    }

    @Test
    void requeueMovesOnlyADeadRowBackWithAFreshStartAndKeepsTheReason() {
        jobs.insert(1, 3, Payment.PAID);
        deadLetter(1);
        db.execute("UPDATE " + jobs.name() + " SET attempts = 7 WHERE id = 1");
        assertTrue(Sync.MACHINE.isTerminal(Sync.FAILED), "the dead state is terminal in the machine");

        TransitionResult<Sync> r = queue.deadLetters().requeue(1L);
        assertEquals(new TransitionResult.Applied<>(1L, Sync.PENDING), r);
        assertEquals(1L, r.longId());
        assertEquals(Sync.PENDING, jobs.sync(1));
        assertEquals(0, ((Number) jobs.get(1, "attempts")).intValue(), "attempts start again from 0");
        assertNull(jobs.get(1, "claim_token"));
        assertNull(jobs.get(1, "lease_until"));
        assertNull(jobs.get(1, "next_attempt_at"), "due at once");
        assertEquals("r1", jobs.get(1, "last_error"), "the reason is kept until the next attempt");
        assertEquals(0, queue.deadLetters().count(1000));

        assertInstanceOf(
                TransitionResult.AlreadyInTarget.class, queue.deadLetters().requeue(1L), "requeued already");
        List<ClaimedRow<Sync>> again = queue.claim(10);
        assertEquals(1, again.size());
        assertEquals(1L, again.get(0).longId());
        assertEquals(1, again.get(0).attempt(), "the next claim is attempt 1");
        assertEquals(
                new TransitionResult.Rejected<>(1L, Sync.PROCESSING, Sync.PENDING),
                queue.deadLetters().requeue(1L),
                "a claimed row is not touched");
        assertEquals(Sync.PROCESSING, jobs.sync(1));
        assertEquals(again.get(0).token(), ((Number) jobs.get(1, "claim_token")).longValue());
        assertEquals(
                new TransitionResult.Rejected<>(2L, Sync.COMPLETED, Sync.PENDING),
                queue.deadLetters().requeue(2L),
                "a completed row is not touched");
        assertEquals(Sync.COMPLETED, jobs.sync(2));
        assertEquals(new TransitionResult.NotFound<>(99L), queue.deadLetters().requeue(99L));
    }

    @Test
    void ofTwoConcurrentRequeuesOfOneRowExactlyOneMovesIt() throws Exception {
        int n = 20;
        jobs.insert(1, n, Payment.PAID);
        long[] all = new long[n];
        for (int i = 0; i < n; i++) {
            all[i] = i + 1;
        }
        deadLetter(all);
        Baton other = Baton.using(db.dataSource());
        ClaimQueue<Sync> otherQueue = jobs.queue(other, LEASE);
        for (long id = 1; id <= n; id++) {
            long row = id;
            List<TransitionResult<Sync>> results = Races.run(
                    2, i -> (i == 0 ? queue : otherQueue).deadLetters().requeue(row));
            assertEquals(1, Races.count(results, TransitionResult.Applied.class), "row " + id + ": " + results);
            assertEquals(1, Races.count(results, TransitionResult.AlreadyInTarget.class), "row " + id + ": " + results);
            assertEquals(Sync.PENDING, jobs.sync(id));
        }
        assertEquals(0, queue.deadLetters().count(1000));
    }

    @Test
    void requeueAllDeadIsBoundedAndTakesTheLowestIdsFirst() {
        jobs.insert(1, 6, Payment.PAID);
        deadLetter(1, 2, 4, 5, 6);
        assertEquals(new BulkResult(3, 1), queue.deadLetters().requeueAll(3));
        assertEquals(Sync.PENDING, jobs.sync(1));
        assertEquals(Sync.PENDING, jobs.sync(2));
        assertEquals(Sync.COMPLETED, jobs.sync(3), "never dead: untouched");
        assertEquals(Sync.PENDING, jobs.sync(4));
        assertEquals(List.of(5L, 6L), ids(queue.deadLetters().list(10)));
        assertEquals(0, ((Number) jobs.get(4, "attempts")).intValue());
        assertEquals("r4", jobs.get(4, "last_error"));
        assertEquals(new BulkResult(2, 1), queue.deadLetters().requeueAll(3));
        assertEquals(new BulkResult(0, 1), queue.deadLetters().requeueAll(3));
        assertEquals(5, queue.claim(10).size());
    }

    /**
     * On a queue with a non-idempotent sink, rows that went dead after their send may have happened (the reconciler's
     * deadLetter verdict, a completion the database refused after the send) are marked and left dead by both
     * requeues unless the operator asks for them explicitly; a row dead before its send is
     * requeued as before.
     */
    @Test
    void rowsThatMayHaveBeenSentStayDeadUnlessTheRequeueAsksForThem() {
        ClaimQueue<Sync> sending = jobs.sendingQueue(baton, LEASE);
        jobs.insert(1, 4, Payment.PAID);
        List<ClaimedRow<Sync>> rows = new ArrayList<>(sending.claim(4));
        rows.sort(java.util.Comparator.comparingLong(ClaimedRow::longId));
        for (int i = 0; i < 3; i++) {
            assertTrue(sending.markSending(rows.get(i)).done());
        }
        // 1: sent, the outcome unknown, and the reconciler gives up
        sending.apply(rows.get(0), Outcome.unknown("timeout"));
        assertTrue(sending.unknownSends()
                .resolve(1L, Outcome.deadLetter("cannot tell"))
                .done());
        // 2: sent, and the database refuses the completion (a value too long for its column)
        sending.apply(rows.get(1), Outcome.<Sync>complete(Sync.COMPLETED).set("third_party_guid", "g".repeat(100)));
        // 3: sent, and the reconciler gives up too
        sending.apply(rows.get(2), Outcome.unknown("timeout"));
        assertTrue(sending.unknownSends()
                .resolve(3L, Outcome.deadLetter("cannot tell"))
                .done());
        // 4: dead before any send
        sending.apply(rows.get(3), Outcome.deadLetter("bad payload"));

        List<DeadRow> dead = sending.deadLetters().list(10);
        assertEquals(List.of(1L, 2L, 3L, 4L), ids(dead));
        for (DeadRow d : dead) {
            assertEquals(d.longId() != 4, d.mayHaveBeenSent(), "row " + d.longId() + ": " + d.lastError());
        }
        assertTrue(dead.get(0).lastError().startsWith(DeadRow.MAY_HAVE_BEEN_SENT + "cannot tell"), dead.toString());

        assertEquals(new BulkResult(1, 1), sending.deadLetters().requeueAll(10), "only the row never sent");
        assertEquals(Sync.PENDING, jobs.sync(4));
        assertEquals(
                new TransitionResult.Rejected<>(1L, Sync.FAILED, Sync.PENDING),
                sending.deadLetters().requeue(1L),
                "a row that may have been sent needs the explicit option");
        assertEquals(Sync.FAILED, jobs.sync(1));
        assertEquals(
                new TransitionResult.Applied<>(1L, Sync.PENDING),
                sending.deadLetters().requeue(1L, DeadRow.Requeue.EVEN_IF_MAYBE_SENT));
        assertEquals(new BulkResult(2, 1), sending.deadLetters().requeueAll(10, DeadRow.Requeue.EVEN_IF_MAYBE_SENT));
        assertEquals(0, sending.deadLetters().count(1000));
    }

    /** A payout whose handler may also skip it, which the machine allows before the send only. */
    enum Payout {
        PENDING(0),
        PROCESSING(1),
        PAID(2),
        FAILED(3),
        SENDING(4),
        UNKNOWN(5),
        SKIPPED(6);

        final int code;

        Payout(int code) {
            this.code = code;
        }

        static final StateMachine<Payout> MACHINE = StateMachine.of(Payout.class)
                .storedAs(p -> p.code)
                .initial(PENDING)
                .allow(PENDING, PROCESSING)
                .allow(PROCESSING, PENDING, PAID, FAILED, SENDING, SKIPPED)
                .allow(SENDING, PAID, UNKNOWN, FAILED, PENDING)
                .allow(UNKNOWN, PAID, PENDING, FAILED)
                .terminal(PAID, FAILED, SKIPPED)
                .build();
    }

    private ClaimQueue<Payout> payouts() {
        return baton.<Payout>queue("payout-" + jobs.name())
                .table(jobs.name())
                .claim("sync_status", Payout.MACHINE, Payout.PENDING, Payout.PROCESSING)
                .deadState(Payout.FAILED)
                .nonIdempotentSink(Payout.SENDING, Payout.UNKNOWN)
                .lease(LEASE)
                .build();
    }

    /**
     * A Worker marks each row sending before its handler pays out; the handler then answers a completion the machine
     * forbids from the sending state (row 1) or a dead letter of its own (row 2). Both rows die after their send: they
     * must carry the maybe-sent mark, so that the operator's everyday requeue leaves them dead and the sink is called
     * once per row.
     */
    @Test
    void aRowThatDiesAfterItsSendIsMarkedMaybeSentAndRequeueAllLeavesIt() throws Exception {
        ClaimQueue<Payout> q = payouts();
        jobs.insert(1, 2, Payment.PAID);
        List<Long> paidOut = new CopyOnWriteArrayList<>();
        Worker worker = baton.worker(q)
                .batchSize(10)
                .pollInterval(Duration.ofMillis(20), Duration.ofMillis(100))
                .handle(row -> {
                    paidOut.add(row.longId());
                    return row.longId() == 1
                            ? Outcome.complete(Payout.SKIPPED)
                            : Outcome.deadLetter("the partner answered 422 after taking the payout");
                })
                .start();
        try {
            Timing.await("both rows dead", () -> q.deadLetters().count(10) == 2, 30, () -> "sent " + paidOut);
        } finally {
            worker.close();
        }
        List<DeadRow> dead = q.deadLetters().list(10);
        for (DeadRow d : dead) {
            assertTrue(d.mayHaveBeenSent(), "row " + d.longId() + " died after its send: " + d.lastError());
        }
        assertEquals(0, q.deadLetters().requeueAll(100).rows(), "nothing that may have been sent");
        assertEquals(List.of(1L, 2L), ids(q.deadLetters().list(10)));
        assertEquals(2, paidOut.size(), "each row paid out once: " + paidOut);
    }

    /**
     * A row that dies before its mark (the handler's dead letter is written from the processing state) cannot have
     * been sent and is requeued as before; one that dies after it carries the mark.
     */
    @Test
    void aDeadLetterBeforeTheMarkIsPlainAndOneAfterItIsMarked() {
        ClaimQueue<Payout> q = payouts();
        jobs.insert(1, 2, Payment.PAID);
        List<ClaimedRow<Payout>> rows = new ArrayList<>(q.claim(2));
        rows.sort(java.util.Comparator.comparingLong(ClaimedRow::longId));
        assertTrue(q.markSending(rows.get(1)).done());
        assertTrue(q.apply(rows.get(0), Outcome.deadLetter("bad payload")).done());
        assertTrue(q.apply(rows.get(1), Outcome.deadLetter("partner refused")).done());
        List<DeadRow> dead = q.deadLetters().list(10);
        assertEquals("bad payload", dead.get(0).lastError());
        assertEquals(DeadRow.MAY_HAVE_BEEN_SENT + "partner refused", dead.get(1).lastError());
    }

    /**
     * A retry past the queue's attempts dead-letters the row. After its mark the send may have happened, so the dead
     * row carries the maybe-sent mark and {@code requeueAll} leaves it; the same retry before a mark dies plain and is
     * requeued.
     */
    @Test
    void aRetryPastItsAttemptsAfterTheMarkDiesMarkedAndOneBeforeItDiesPlain() {
        ClaimQueue<Payout> q = baton.<Payout>queue("payout-once-" + jobs.name())
                .table(jobs.name())
                .claim("sync_status", Payout.MACHINE, Payout.PENDING, Payout.PROCESSING)
                .deadState(Payout.FAILED)
                .nonIdempotentSink(Payout.SENDING, Payout.UNKNOWN)
                .retry(RetryPolicy.exponential(Duration.ofMillis(10), 2.0).maxAttempts(1))
                .lease(LEASE)
                .build();
        jobs.insert(1, 2, Payment.PAID);
        List<ClaimedRow<Payout>> rows = new ArrayList<>(q.claim(2));
        rows.sort(java.util.Comparator.comparingLong(ClaimedRow::longId));
        assertTrue(q.markSending(rows.get(1)).done());
        assertTrue(
                q.apply(rows.get(0), Outcome.retry("the partner answered 503")).done());
        assertTrue(q.apply(rows.get(1), Outcome.retry("the partner timed out")).done());
        List<DeadRow> dead = q.deadLetters().list(10);
        assertEquals(List.of(1L, 2L), ids(dead), "both rows used their one attempt");
        assertEquals("the partner answered 503", dead.get(0).lastError());
        assertTrue(!dead.get(0).mayHaveBeenSent(), dead.get(0).lastError());
        assertEquals(
                DeadRow.MAY_HAVE_BEEN_SENT + "the partner timed out",
                dead.get(1).lastError());
        assertTrue(dead.get(1).mayHaveBeenSent());
        assertEquals(1, q.deadLetters().requeueAll(100).rows(), "only the row that was never marked");
        assertEquals(List.of(2L), ids(q.deadLetters().list(10)));
    }

    /**
     * A "sent" verdict moves the row out of the queue: into the claimable state it would be sent again, into the dead
     * state it would lose the mark that keeps a requeue from sending it. Both are refused with a typed error before
     * any SQL, and the rows stay unknown; the reconciler's hook goes through the same check.
     */
    @Test
    void aSentVerdictIntoTheQueuesOwnStatesIsRefusedAndTheRowStaysUnknown() {
        ClaimQueue<Sync> sending = jobs.sendingQueue(baton, LEASE);
        jobs.insert(1, 2, Payment.PAID);
        for (ClaimedRow<Sync> r : sending.claim(2)) {
            assertTrue(sending.markSending(r).done());
            assertTrue(sending.apply(r, Outcome.unknown("timeout")).done());
        }
        for (Sync target : new Sync[] {Sync.PENDING, Sync.FAILED, Sync.UNKNOWN, Sync.SENDING, Sync.PROCESSING}) {
            assertThrows(
                    IllegalVerdictException.class,
                    () -> sending.unknownSends().resolveSent(1L, Outcome.complete(target)),
                    "sent into " + target);
            assertThrows(
                    IllegalVerdictException.class,
                    () -> sending.unknownSends().resolve(2L, Outcome.complete(target)),
                    "verdict sent into " + target);
        }
        assertEquals(Sync.UNKNOWN, jobs.sync(1));
        assertEquals(Sync.UNKNOWN, jobs.sync(2));
        assertEquals(0, sending.deadLetters().requeueAll(100).rows());
        assertEquals(
                new LeaseResult.Done<>(1L, Sync.COMPLETED),
                sending.unknownSends().resolveSent(1L, Outcome.complete(Sync.COMPLETED)));
        LeaseResult<Sync> given = sending.unknownSends().deadLetter(2L, null);
        assertTrue(given.done());
        String error = sending.deadLetters().list(1).get(0).lastError();
        assertTrue(error.startsWith(DeadRow.MAY_HAVE_BEEN_SENT) && !error.endsWith("null"), error);
    }

    /**
     * The maybe-sent mark is the start of the error text, cut to the column's width: a non-idempotent queue whose
     * error column is too narrow to hold it fails {@code verify()} naming the column, where an idempotent one passes.
     */
    @Test
    void anErrorColumnTooNarrowForTheMaybeSentMarkFailsVerifyOfASendingQueue() {
        String table = TestDatabases.uniqueName("dead_narrow");
        String ts = db.kind().timestampType();
        db.execute("CREATE TABLE " + table + " (id BIGINT NOT NULL PRIMARY KEY, payment_status INT NOT NULL,"
                + " sync_status INT NOT NULL, third_party_guid VARCHAR(64) NULL, lease_until " + ts + ","
                + " claim_token BIGINT NULL, attempts INT DEFAULT 0 NOT NULL, next_attempt_at " + ts + ","
                + " last_error VARCHAR(16) NULL, created_at " + ts + ", payload VARCHAR(100) NULL)");
        try {
            db.execute("CREATE INDEX ix_" + table + " ON " + table + " (sync_status, payment_status, id)");
            SchemaMismatchException e =
                    assertThrows(SchemaMismatchException.class, () -> JobsTable.sendingQueue(baton, table, LEASE)
                            .verify());
            assertTrue(e.getMessage().contains("last_error holds 16 characters"), e.getMessage());
            JobsTable.queue(baton, table, LEASE).verify();
        } finally {
            db.dropTableIfExists(table);
        }
    }

    @Test
    void badInputIsRefusedWithATypedErrorBeforeAnySql() {
        ClaimQueue<Sync> sending = jobs.sendingQueue(baton, LEASE);
        jobs.drop(); // any SQL would now fail with a DataAccessException
        for (int limit : new int[] {0, -1, Integer.MIN_VALUE}) {
            assertThrows(ConfigurationException.class, () -> queue.deadLetters().list(limit));
            assertThrows(ConfigurationException.class, () -> queue.deadLetters().listAfter(1L, limit));
            assertThrows(ConfigurationException.class, () -> queue.deadLetters().requeueAll(limit));
            assertThrows(
                    ConfigurationException.class, () -> sending.unknownSends().ready(limit, Long.class));
        }
        assertThrows(ConfigurationException.class, () -> queue.deadLetters().requeueAll(queue.maxBatchSize() + 1));
        assertThrows(NullPointerException.class, () -> queue.deadLetters().requeue(null));
        assertThrows(NullPointerException.class, () -> queue.deadLetters().listAfter(null, 10));
        jobs = JobsTable.create(db, "dead", true); // for the @AfterEach
    }

    @Test
    void claimedRowsAndResultsReadIdsAndValuesTyped() {
        jobs.insert(4, 1, Payment.PAID);
        ClaimedRow<Sync> row = queue.claim(1).get(0);
        assertEquals(4L, row.longId());
        assertEquals(Long.valueOf(4), row.id(Long.class));
        assertEquals(Integer.valueOf(4), row.id(Integer.class));
        assertEquals(new java.math.BigDecimal(4), row.id(java.math.BigDecimal.class));
        assertEquals("p4", row.get("payload", String.class));
        assertThrows(ClassCastException.class, () -> row.get("payload", Long.class));
        assertThrows(ClassCastException.class, () -> row.id(String.class));
        assertEquals(4L, queue.complete(row, Sync.COMPLETED).longId());
    }

    @Test
    void deadOutboxMessagesAreListedWithTheirReasonAndRequeuedOnce() throws Exception {
        String table = TestDatabases.uniqueName("outbox");
        assertTrue(baton.ownTables().createOutboxTable(table));
        try {
            Outbox outbox = baton.outbox(table);
            List<Long> ids = new ArrayList<>();
            for (int i = 0; i < 3; i++) {
                EnqueueResult e = outbox.enqueue(Message.of("order.paid", "{\"order\":" + i + "}")
                        .key("k" + i)
                        .header("h", "v" + i));
                ids.add(((EnqueueResult.Enqueued) e).id());
            }
            for (ClaimedRow<Outbox.Status> r : outbox.queue().claim(3)) {
                outbox.queue()
                        .apply(
                                r,
                                r.longId() == ids.get(1)
                                        ? Outcome.complete(Outbox.Status.DELIVERED)
                                        : Outcome.deadLetter("broker said no to " + r.longId()));
            }
            List<DeadMessage> dead = outbox.deadMessages(10);
            assertEquals(2, dead.size());
            DeadMessage first = dead.get(0);
            assertEquals((long) ids.get(0), first.message().id());
            assertEquals("order.paid", first.message().topic());
            assertEquals("k0", first.message().key());
            assertEquals("v0", first.message().headers().get("h"));
            assertEquals("{\"order\":0}", first.message().payloadText());
            assertEquals(1, first.message().attempt());
            assertEquals("broker said no to " + ids.get(0), first.lastError());
            assertEquals(
                    List.of(ids.get(2)),
                    List.of(outbox.deadMessagesAfter(ids.get(0), 10)
                            .get(0)
                            .message()
                            .id()));
            assertEquals(1, outbox.deadMessages(1).size());
            assertEquals(2, outbox.deadLetters().count(1000));
            assertThrows(ConfigurationException.class, () -> outbox.deadMessages(0));

            List<TransitionResult<Outbox.Status>> race =
                    Races.run(2, i -> outbox.deadLetters().requeue(ids.get(0)));
            assertEquals(1, Races.count(race, TransitionResult.Applied.class), race.toString());
            assertEquals(
                    new TransitionResult.Rejected<>(ids.get(1), Outbox.Status.DELIVERED, Outbox.Status.PENDING),
                    outbox.deadLetters().requeue(ids.get(1)),
                    "a delivered message is not touched");
            assertEquals(1, outbox.deadLetters().count(1000));
            List<ClaimedRow<Outbox.Status>> again = outbox.queue().claim(3);
            assertEquals(1, again.size());
            assertEquals((long) ids.get(0), outbox.toMessage(again.get(0)).id());
            assertEquals(1, again.get(0).attempt());
            assertEquals(new BulkResult(1, 1), outbox.deadLetters().requeueAll(10));
            assertEquals(0, outbox.deadLetters().count(1000));
        } finally {
            db.dropTableIfExists(table);
        }
    }
}
