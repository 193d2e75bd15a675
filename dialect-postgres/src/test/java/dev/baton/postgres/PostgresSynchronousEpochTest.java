package dev.baton.postgres;

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
import dev.baton.testservers.TestDatabase;
import dev.baton.testservers.TestServer;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * What an epoch change costs a queue with a non-idempotent sink (policy {@code OFF}) when no SENDING mark was lost: the
 * writer's epoch is the one thing a test dialect reports itself ({@link TestEpochDialect}); whether the
 * commits were synchronous is the server's own answer, and the rows are left as they are, as a lossless promotion, a
 * switchover, or a restart of the same node on a new timeline leaves them.
 *
 * <ul>
 *   <li>On the synchronous cluster (a primary and a synchronous standby) every mark is known durable, and the first
 *       claim after the change takes rows at once: no other process can have lost a mark either.
 *   <li>On the asynchronous cluster the marks are not known durable, and claims hold for {@link EpochChange#HOLD}.
 *   <li>On the local server (no standby) a new timeline on the same node, with every mark still there, puts no send in
 *       doubt: nothing is moved to the unknown state.
 * </ul>
 *
 * Each prints the milliseconds from the epoch change to the first claimed row.
 */
class PostgresSynchronousEpochTest {
    private static final int MARKED = 5;
    private static final int ROWS = 10;
    private static final Duration LEASE = Duration.ofSeconds(60);

    private final AtomicReference<String> epoch = new AtomicReference<>("timeline 1");
    private final List<EpochChange> changes = new CopyOnWriteArrayList<>();
    private JobsTable jobs;

    @AfterEach
    void drop() {
        if (jobs != null) {
            jobs.drop();
        }
    }

    @Test
    void onTheSynchronousClusterTheFirstClaimAfterAnEpochChangeIsNotHeld() {
        ClaimQueue<Sync> queue = markFiveThenChangeTheEpoch(TestServer.POSTGRES_STREAMING_SYNC.get());
        long millis = millisToFirstClaim(queue);
        System.out.println("du: synchronous cluster, epoch change -> first claimed row: " + millis + " ms");
        EpochChange change = onlyChange();
        assertEquals(0, change.marksNotKnownDurable(), "every mark was committed synchronously: " + change);
        assertEquals(0, change.lostMarks(), change.toString());
        assertTrue(millis < 2_000, "the first claim after the change came " + millis + " ms after it: " + change);
        assertMarksStillSending();
    }

    @Test
    void onTheSynchronousClusterMarksMadeAfterCommitsTurnedAsynchronousKeepTheHold() throws Exception {
        TestDatabase db = TestServer.POSTGRES_STREAMING_SYNC.get();
        String names = setting(db, "synchronous_standby_names");
        assertTrue(!names.isEmpty(), "the synchronous cluster names its standby");
        try {
            // as pg_auto_failover does when a standby is unhealthy: no standby named, commits no longer wait
            setStandbyNames(db, "");
            ClaimQueue<Sync> queue = markFiveThenChangeTheEpoch(db);
            long millis = millisToFirstClaim(queue);
            System.out.println("du: synchronous cluster turned asynchronous, epoch change -> first claimed row: "
                    + millis + " ms");
            EpochChange change = onlyChange();
            assertEquals(MARKED, change.marksNotKnownDurable(), "no commit waited for the standby: " + change);
            assertTrue(
                    millis >= EpochChange.HOLD.toMillis() - 500,
                    "the first claim came " + millis + " ms after the change, within the hold: " + change);
        } finally {
            setStandbyNames(db, names);
        }
    }

    @Test
    void onTheAsynchronousClusterClaimsHoldAfterAnEpochChange() {
        ClaimQueue<Sync> queue = markFiveThenChangeTheEpoch(TestServer.POSTGRES_STREAMING_ASYNC.get());
        long millis = millisToFirstClaim(queue);
        System.out.println("du: asynchronous cluster, epoch change -> first claimed row: " + millis + " ms");
        EpochChange change = onlyChange();
        assertEquals(MARKED, change.marksNotKnownDurable(), change.toString());
        assertEquals(0, change.lostMarks(), change.toString());
        assertTrue(
                millis >= EpochChange.HOLD.toMillis() - 500,
                "the first claim came " + millis + " ms after the change, within the hold: " + change);
        assertMarksStillSending();
    }

    @Test
    void aNewTimelineOnTheSameNodeWithEveryMarkInPlacePutsNoSendInDoubt() {
        ClaimQueue<Sync> queue = markFiveThenChangeTheEpoch(TestServer.POSTGRES_LOCAL.get());
        List<ClaimedRow<Sync>> next = queue.claim(ROWS);
        EpochChange change = onlyChange();
        assertEquals("timeline 1", change.from());
        assertEquals("timeline 2", change.to());
        assertEquals(MARKED, change.marksNotKnownDurable(), "no standby: no mark is known durable: " + change);
        assertEquals(0, change.lostMarks(), "every mark is on the restarted node: " + change);
        assertEquals(0, change.untracked(), change.toString());
        assertEquals(List.of(), next, "marks not known durable: the claim that saw the new writer holds");
        assertMarksStillSending();
        assertEquals(0, jobs.countBySync().getOrDefault(Sync.UNKNOWN, 0), "nothing moved to UNKNOWN");
    }

    /** Claims and marks rows 1..5 on {@code db} (a first claim reads the epoch), then turns the epoch. */
    private ClaimQueue<Sync> markFiveThenChangeTheEpoch(TestDatabase db) {
        jobs = JobsTable.create(db, "du_sync_epoch", true);
        jobs.insert(1, ROWS, Payment.PAID);
        Baton baton = Baton.builder(db.dataSource())
                .dialect(TestEpochDialect.of(new PostgresDialect(), epoch))
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
        epoch.set("timeline 2");
        return queue;
    }

    /** Claims until a row comes (every 50 ms, for at most twice the hold); the milliseconds since the change. */
    private long millisToFirstClaim(ClaimQueue<Sync> queue) {
        long start = System.nanoTime();
        long deadline = start + 2 * EpochChange.HOLD.toNanos();
        while (System.nanoTime() - deadline < 0) {
            List<ClaimedRow<Sync>> rows = queue.claim(ROWS);
            if (!rows.isEmpty()) {
                assertTrue(rows.stream().allMatch(r -> r.longId() > MARKED), "a marked row was claimed: " + rows);
                return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
            }
            try {
                Thread.sleep(50);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError(e);
            }
        }
        throw new AssertionError("no row claimed within " + 2 * EpochChange.HOLD.toSeconds() + " s: " + changes);
    }

    private static String setting(TestDatabase db, String name) throws java.sql.SQLException {
        try (java.sql.Connection c = db.connect();
                java.sql.Statement s = c.createStatement();
                java.sql.ResultSet rs = s.executeQuery("SELECT current_setting('" + name + "')")) {
            rs.next();
            return rs.getString(1);
        }
    }

    /** Sets the primary's {@code synchronous_standby_names} and waits until a new session sees it. */
    private static void setStandbyNames(TestDatabase db, String names) throws Exception {
        db.execute("ALTER SYSTEM SET synchronous_standby_names = '" + names + "'", "SELECT pg_reload_conf()");
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!setting(db, "synchronous_standby_names").equals(names)) {
            assertTrue(System.nanoTime() - deadline < 0, "the reload took effect");
            Thread.sleep(20);
        }
        Thread.sleep(200); // the pool's idle sessions reload when they next wait for a command
    }

    private EpochChange onlyChange() {
        assertEquals(1, changes.size(), "one epoch change: " + changes);
        return changes.get(0);
    }

    private void assertMarksStillSending() {
        for (long id = 1; id <= MARKED; id++) {
            assertEquals(Sync.SENDING, jobs.sync(id), "row " + id);
        }
    }
}
