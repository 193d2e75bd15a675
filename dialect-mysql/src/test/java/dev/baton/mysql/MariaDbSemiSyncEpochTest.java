package dev.baton.mysql;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.baton.Baton;
import dev.baton.BatonListener;
import dev.baton.ClaimQueue;
import dev.baton.ClaimedRow;
import dev.baton.EpochChange;
import dev.baton.LeaseResult;
import dev.baton.testkit.compat.JobsTable;
import dev.baton.testkit.compat.Payment;
import dev.baton.testkit.compat.Sync;
import dev.baton.testkit.compat.TestEpochDialect;
import dev.baton.testservers.MariaDbReplication;
import dev.baton.testservers.MariaDbReplication.Replication;
import dev.baton.testservers.TestDatabase;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * What an epoch change costs a queue with a non-idempotent sink (policy {@code OFF}) on a MariaDB primary with one
 * replica when no SENDING mark was lost: the writer's epoch is the one thing a test dialect reports itself; whether
 * replication was semi-synchronous is the primary's own answer ({@code Rpl_semi_sync_master_status}), and the rows are
 * left as they are. With semi-synchronous replication ON every mark is known durable and the first claim after the
 * change is not held; with asynchronous replication claims hold for {@link EpochChange#HOLD}. Each prints the
 * milliseconds from the epoch change to the first claimed row.
 */
class MariaDbSemiSyncEpochTest {
    private static final int MARKED = 5;
    private static final int ROWS = 10;
    private static final Duration LEASE = Duration.ofSeconds(60);

    @Test
    void underSemiSynchronousReplicationTheFirstClaimAfterAnEpochChangeIsNotHeld() {
        try (MariaDbReplication topology = MariaDbReplication.start(Replication.SEMI_SYNC, Duration.ofSeconds(30))) {
            List<EpochChange> changes = new CopyOnWriteArrayList<>();
            long millis = markFiveChangeTheEpochAndClaim(topology.database(), changes);
            System.out.println("du: MariaDB semi-sync, epoch change -> first claimed row: " + millis + " ms");
            assertEquals(1, changes.size(), changes.toString());
            assertEquals(0, changes.get(0).marksNotKnownDurable(), "every mark was acknowledged: " + changes);
            assertEquals(0, changes.get(0).lostMarks(), changes.toString());
            assertTrue(millis < 2_000, "the first claim came " + millis + " ms after the change: " + changes);
        }
    }

    @Test
    void underAsynchronousReplicationClaimsHoldAfterAnEpochChange() {
        try (MariaDbReplication topology = MariaDbReplication.start(Replication.ASYNC)) {
            List<EpochChange> changes = new CopyOnWriteArrayList<>();
            long millis = markFiveChangeTheEpochAndClaim(topology.database(), changes);
            System.out.println("du: MariaDB async, epoch change -> first claimed row: " + millis + " ms");
            assertEquals(1, changes.size(), changes.toString());
            assertEquals(MARKED, changes.get(0).marksNotKnownDurable(), changes.toString());
            assertEquals(0, changes.get(0).lostMarks(), changes.toString());
            assertTrue(
                    millis >= EpochChange.HOLD.toMillis() - 500,
                    "the first claim came " + millis + " ms after the change, within the hold: " + changes);
        }
    }

    /** Marks rows 1..5, turns the epoch, claims until a row comes; the milliseconds from the change to that row. */
    private static long markFiveChangeTheEpochAndClaim(TestDatabase db, List<EpochChange> changes) {
        AtomicReference<String> epoch = new AtomicReference<>("server_id 1");
        JobsTable jobs = JobsTable.create(db, "du_semi_epoch", true);
        try {
            jobs.insert(1, ROWS, Payment.PAID);
            Baton baton = Baton.builder(db.dataSource())
                    .dialect(TestEpochDialect.of(Baton.using(db.dataSource()).dialect(), epoch))
                    .listener(new BatonListener() {
                        @Override
                        public void onEpochChange(EpochChange change) {
                            changes.add(change);
                        }
                    })
                    .build();
            ClaimQueue<Sync> queue = JobsTable.sendingQueue(baton, jobs.name(), LEASE);
            List<ClaimedRow<Sync>> claimed = queue.claim(MARKED);
            assertEquals(MARKED, claimed.size());
            for (ClaimedRow<Sync> row : claimed) {
                assertInstanceOf(LeaseResult.Done.class, queue.markSending(row));
            }
            epoch.set("server_id 2");
            long start = System.nanoTime();
            long deadline = start + 2 * EpochChange.HOLD.toNanos();
            while (System.nanoTime() - deadline < 0) {
                List<ClaimedRow<Sync>> rows = queue.claim(ROWS);
                if (!rows.isEmpty()) {
                    assertTrue(rows.stream().allMatch(r -> r.longId() > MARKED), "a marked row was claimed: " + rows);
                    for (long id = 1; id <= MARKED; id++) {
                        assertEquals(Sync.SENDING, jobs.sync(id), "row " + id);
                    }
                    return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
                }
                Thread.sleep(50);
            }
            throw new AssertionError("no row claimed within " + 2 * EpochChange.HOLD.toSeconds() + " s: " + changes);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        } finally {
            jobs.drop();
        }
    }
}
