package dev.baton.testkit.compat;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.baton.Baton;
import dev.baton.BatonListener;
import dev.baton.ClaimQueue;
import dev.baton.ClaimedRow;
import dev.baton.ConfigurationException;
import dev.baton.EpochChange;
import dev.baton.LeaseResult;
import dev.baton.Outcome;
import dev.baton.Worker;
import dev.baton.testkit.DatabaseSuite;
import dev.baton.testservers.TestDatabase;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The epoch watch of a queue with a non-idempotent sink, without a failover: the writer's epoch is the one thing a
 * test dialect reports itself (the server's own dialect otherwise), and the test turns it after making with plain SQL
 * what a promotion leaves behind (a lossy one: rows whose SENDING marks are gone, claimable again with their attempts
 * back, or still processing under the claim that marked them). Each test fails when a claim hands out a row whose mark
 * this process knows was lost, when a row this process itself put back in the queue is quarantined as a lost mark, or
 * when a Worker may idle longer than the other processes hold their claims after a new writer.
 */
public abstract class AbstractEpochCompatibilityTest extends DatabaseSuite {
    private static final Duration LEASE = Duration.ofSeconds(30);
    private static final int ROWS = 10;

    private final AtomicReference<String> epoch = new AtomicReference<>("epoch 1");
    private final List<EpochChange> changes = new CopyOnWriteArrayList<>();
    private TestDatabase db;
    private JobsTable jobs;
    private Baton baton;

    @Override
    protected void setUp() {
        db = database();
    }

    @BeforeEach
    void table() {
        epoch.set("epoch 1");
        changes.clear();
        jobs = JobsTable.create(db, "ep", true);
        jobs.insert(1, ROWS, Payment.PAID);
        baton = Baton.builder(db.dataSource())
                .dialect(TestEpochDialect.of(Baton.using(db.dataSource()).dialect(), epoch))
                .listener(new BatonListener() {
                    @Override
                    public void onEpochChange(EpochChange change) {
                        changes.add(change);
                    }
                })
                .build();
    }

    @AfterEach
    void drop() {
        jobs.drop();
    }

    @Test
    void aClaimInTheCallersTransactionMovesTheRowsOfLostMarksBeforeItClaims() throws SQLException {
        ClaimQueue<Sync> queue = jobs.sendingQueue(baton, LEASE);
        // on the old writer, in a caller's transaction: rows 1..3 claimed, then marked (the sends happen)
        List<ClaimedRow<Sync>> claimed = baton.inTransaction(c -> queue.claim(3));
        assertEquals(3, claimed.size());
        for (ClaimedRow<Sync> row : claimed) {
            assertInstanceOf(LeaseResult.Done.class, queue.markSending(row));
        }
        loseClaimsAndMarksOfRows1To3();
        epoch.set("epoch 2");

        List<ClaimedRow<Sync>> after;
        try (Connection c = db.connect()) {
            c.setAutoCommit(false);
            after = queue.claim(c, ROWS);
            c.commit();
        }
        assertTrue(
                after.stream().noneMatch(r -> r.longId() <= 3),
                "after the failover the claim in the caller's transaction claimed "
                        + after.stream().map(ClaimedRow::longId).toList() + "; epoch changes seen " + changes);
        assertEquals(1, changes.size(), "one epoch change: " + changes);
        assertEquals(3, changes.get(0).lostMarks(), changes.get(0).toString());
        for (long id = 1; id <= 3; id++) {
            assertEquals(Sync.UNKNOWN, jobs.sync(id), "row " + id);
        }
    }

    @Test
    void aSecondQueueObjectOfTheSameQueueMovesTheRowsOfTheFirstOnesLostMarks() {
        // the same queue built twice in one process (a factory called for each of two workers)
        ClaimQueue<Sync> first = jobs.sendingQueue(baton, LEASE);
        ClaimQueue<Sync> second = jobs.sendingQueue(baton, LEASE);
        List<ClaimedRow<Sync>> claimed = first.claim(3);
        assertEquals(3, claimed.size());
        for (ClaimedRow<Sync> row : claimed) {
            assertInstanceOf(LeaseResult.Done.class, first.markSending(row));
        }
        loseClaimsAndMarksOfRows1To3();
        epoch.set("epoch 2");

        List<ClaimedRow<Sync>> after = second.claim(ROWS);
        assertTrue(
                after.stream().noneMatch(r -> r.longId() <= 3),
                "the other queue object of the process claimed "
                        + after.stream().map(ClaimedRow::longId).toList() + "; epoch changes seen " + changes);
        for (long id = 1; id <= 3; id++) {
            assertEquals(Sync.UNKNOWN, jobs.sync(id), "row " + id);
        }
        assertEquals(1, changes.size(), "one epoch change: " + changes);
        assertEquals(3, changes.get(0).lostMarks(), changes.get(0).toString());
        // the first object's next claim meets the change already handled: no second report, no row handed out
        assertTrue(first.claim(ROWS).stream().noneMatch(r -> r.longId() <= 3));
        assertEquals(1, changes.size(), "still one epoch change: " + changes);
    }

    @Test
    void rowsThisProcessPutBackInTheQueueAfterTheirMarkAreNotLostMarks() {
        ClaimQueue<Sync> queue = jobs.sendingQueue(baton, LEASE);
        List<ClaimedRow<Sync>> claimed = queue.claim(4);
        assertEquals(
                List.of(1L, 2L, 3L, 4L),
                claimed.stream().map(ClaimedRow::longId).toList());
        for (ClaimedRow<Sync> row : claimed.subList(0, 3)) {
            assertInstanceOf(LeaseResult.Done.class, queue.markSending(row));
        }
        // row 1 sent; row 2 refused by the partner (nothing created): due again; row 3 timed out, then the reconciler
        // found nothing at the partner: due again
        assertInstanceOf(LeaseResult.Done.class, queue.complete(claimed.get(0), Sync.COMPLETED));
        assertInstanceOf(
                LeaseResult.Done.class,
                queue.apply(
                        claimed.get(1), Outcome.retryAfter(Duration.ZERO, "partner answered 503: nothing created")));
        assertInstanceOf(LeaseResult.Done.class, queue.apply(claimed.get(2), Outcome.unknown("timed out")));
        assertInstanceOf(LeaseResult.Done.class, queue.unknownSends().resolveNotSent(3L));
        // row 4 marked and sent last
        assertInstanceOf(LeaseResult.Done.class, queue.markSending(claimed.get(3)));
        assertInstanceOf(LeaseResult.Done.class, queue.complete(claimed.get(3), Sync.COMPLETED));
        // the promotion lost the last two commits, row 4's mark and completion: on the new writer row 4 is processing
        // under its claim, everything before is there
        db.execute("UPDATE " + jobs.name() + " SET sync_status = " + Sync.PROCESSING.code() + " WHERE id = 4");
        epoch.set("epoch 2");

        queue.claim(ROWS);
        assertEquals(1, changes.size(), "one epoch change: " + changes);
        EpochChange change = changes.get(0);
        assertEquals(
                List.of(Sync.COMPLETED, Sync.PENDING, Sync.PENDING, Sync.UNKNOWN),
                List.of(jobs.sync(1), jobs.sync(2), jobs.sync(3), jobs.sync(4)),
                "rows 1..4 after the epoch change " + change);
        assertEquals(1, change.lostMarks(), "only row 4's mark was lost: " + change);
        assertEquals(2, change.marksNotKnownDurable(), "rows 1 and 4 may have been sent: " + change);
    }

    @Test
    void aWorkerOfASendingQueueRefusesAnIdlePollThatOutlastsHalfTheHold() {
        ClaimQueue<Sync> queue = jobs.sendingQueue(baton, LEASE);
        Worker.Builder<Sync> builder = baton.worker(queue)
                .pollInterval(
                        Duration.ofMillis(500), EpochChange.HOLD.dividedBy(2).plusMillis(1))
                .handle(row -> Outcome.complete(Sync.COMPLETED));
        ConfigurationException e = assertThrows(ConfigurationException.class, () -> {
            try (Worker started = builder.start()) {
                started.isRunning();
            }
        });
        assertTrue(e.getMessage().contains(queue.name()), e.getMessage());
        // within half the hold it starts
        try (Worker started = baton.worker(queue)
                .pollInterval(Duration.ofMillis(500), EpochChange.HOLD.dividedBy(2))
                .handle(row -> Outcome.complete(Sync.COMPLETED))
                .start()) {
            assertTrue(started.isRunning());
        }
    }

    /** What a standby without the last commits holds for rows 1..3: pending, attempts 0, no token, no lease. */
    private void loseClaimsAndMarksOfRows1To3() {
        db.execute("UPDATE " + jobs.name() + " SET sync_status = " + Sync.PENDING.code()
                + ", claim_token = NULL, lease_until = NULL, attempts = 0 WHERE id <= 3");
    }
}
