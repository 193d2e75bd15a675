package dev.baton.postgres;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.zaxxer.hikari.HikariDataSource;
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
import dev.baton.testkit.faults.Fault;
import dev.baton.testkit.faults.FaultPoint;
import dev.baton.testkit.faults.FaultyDataSource;
import dev.baton.testkit.faults.Step;
import dev.baton.testservers.TestDatabase;
import dev.baton.testservers.TestDatabases;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The epoch watch's move on the local PostgreSQL, without a failover: the writer's epoch is
 * the one thing a test dialect reports itself (the real PostgreSQL dialect otherwise), so the test turns it when it
 * has made, with plain SQL, what a lossy promotion leaves behind: rows whose SENDING marks are gone (claimable again,
 * or still processing under the claim that marked them). The failover itself is {@link PostgresFailoverTest}'s.
 *
 * <ul>
 *   <li>The reply of the statement that moves the rows to the unknown state is lost (it committed): the claim's retry
 *       finds the epoch changed again and must still report every lost mark once, in one {@link EpochChange}.
 *   <li>A claimer of another process (another {@link Baton}, which never saw the old epoch) took one of those rows on
 *       the new writer first: the move takes it from that claimer, whose fenced writes then answer lease lost.
 * </ul>
 */
class PostgresEpochMoveTest {
    private static final int MARKED = 5;
    private static final int ROWS = 10;

    private final AtomicReference<String> epoch = new AtomicReference<>("timeline 1");
    private final List<HikariDataSource> pools = new CopyOnWriteArrayList<>();
    private TestDatabase db;
    private JobsTable jobs;

    @BeforeEach
    void table() {
        db = TestDatabases.postgresLocal();
        jobs = JobsTable.create(db, "pgf_epoch", true);
        jobs.insert(1, ROWS, Payment.PAID);
    }

    @AfterEach
    void drop() {
        pools.forEach(HikariDataSource::close);
        jobs.drop();
    }

    @Test
    void aLostReplyOnTheMoveReportsEveryLostMarkOnceAndTakesTheRowFromAnotherProcessClaimer() {
        List<EpochChange> changes = new CopyOnWriteArrayList<>();
        FaultyDataSource faults = new FaultyDataSource(db);
        Baton here = Baton.builder(faults)
                .dialect(TestEpochDialect.of(new PostgresDialect(), epoch))
                .listener(new BatonListener() {
                    @Override
                    public void onEpochChange(EpochChange change) {
                        changes.add(change);
                    }
                })
                .build();
        ClaimQueue<Sync> queue = JobsTable.sendingQueue(here, jobs.name(), Duration.ofSeconds(30));

        // on the old writer: this process claims and marks rows 1..5 (OFF: no standby is known to have the marks)
        List<ClaimedRow<Sync>> claimed = queue.claim(MARKED);
        assertEquals(MARKED, claimed.size());
        for (ClaimedRow<Sync> row : claimed) {
            assertInstanceOf(LeaseResult.Done.class, queue.markSending(row));
        }
        // the promotion lost the marks: rows 1..3 lost their claim too (claimable, attempts back to 0), rows 4..5 are
        // processing under the claim that marked them
        db.execute("UPDATE " + jobs.name() + " SET sync_status = " + Sync.PENDING.code()
                + ", claim_token = NULL, lease_until = NULL, attempts = attempts - 1 WHERE id <= 3");
        db.execute("UPDATE " + jobs.name() + " SET sync_status = " + Sync.PROCESSING.code() + " WHERE id IN (4, 5)");
        epoch.set("timeline 2");

        // another process, whose first claim is on the new writer, takes row 1 (it had no marks on the old one)
        HikariDataSource otherPool = db.newDataSource(2);
        pools.add(otherPool);
        Baton there = Baton.builder(otherPool)
                .dialect(TestEpochDialect.of(new PostgresDialect(), epoch))
                .build();
        ClaimQueue<Sync> theirs = JobsTable.sendingQueue(there, jobs.name(), Duration.ofSeconds(30));
        List<ClaimedRow<Sync>> taken = theirs.claim(1);
        assertEquals(1, taken.size());
        ClaimedRow<Sync> theirRow = taken.get(0);
        assertEquals(1L, theirRow.longId());
        // the token was issued again: the lost claim's token was another random value
        assertTrue(claimed.stream().noneMatch(r -> r.token() == theirRow.token()));

        // this process claims next: it sees the new epoch and moves the rows; the move's reply is lost
        faults.arm(Fault.whenSql(FaultPoint.LOST_REPLY, s -> s.startsWith("UPDATE") && s.contains("= NULL WHERE")));
        List<ClaimedRow<Sync>> next = queue.claim(ROWS);
        Optional<Step> fired = faults.fired();
        faults.disarm();
        assertTrue(fired.isPresent(), "the move's statement ran and its reply was lost: " + faults.steps());

        assertEquals(1, changes.size(), "one epoch change: " + changes);
        EpochChange change = changes.get(0);
        assertEquals(MARKED, change.marksNotKnownDurable(), change.toString());
        assertEquals(MARKED, change.lostMarks(), "every lost mark counted once, across the lost reply: " + change);
        // the claim that saw the new writer takes nothing: for EpochChange.HOLD the other processes of the queue move
        // the rows of their own lost marks first
        assertEquals(List.of(), next, "the claim that saw the new writer holds");
        for (long id = 1; id <= MARKED; id++) {
            assertEquals(Sync.UNKNOWN, jobs.sync(id), "row " + id);
            assertNull(jobs.get(id, "claim_token"), "row " + id);
        }
        // the other process's claim of row 1 was taken from it: its fenced writes answer lease lost
        assertInstanceOf(LeaseResult.LeaseLost.class, theirs.markSending(theirRow));
        assertInstanceOf(LeaseResult.LeaseLost.class, theirs.complete(theirRow, Sync.COMPLETED));
        // and the lost claims of this process, whose tokens were issued by the old writer, cannot complete either
        for (ClaimedRow<Sync> row : claimed) {
            assertInstanceOf(LeaseResult.LeaseLost.class, queue.complete(row, Sync.COMPLETED), row.toString());
        }
        assertEquals(Sync.UNKNOWN, jobs.sync(1));
    }
}
