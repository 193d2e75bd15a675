package dev.baton.testkit.compat;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.baton.Baton;
import dev.baton.BatonListener;
import dev.baton.ClaimQueue;
import dev.baton.ClaimedRow;
import dev.baton.LeaseLostException;
import dev.baton.LeaseResult;
import dev.baton.Outcome;
import dev.baton.Worker;
import dev.baton.spi.Dialect;
import dev.baton.testkit.DatabaseSuite;
import dev.baton.testkit.faults.FaultyDataSource;
import dev.baton.testservers.TestDatabase;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A paused sender must not send after its lease, and the worker's sweep must reconcile every unknown
 * send and count every lost lease once. A pause is a sleep of the test's own thread
 * (nothing runs a heartbeat for the claim meanwhile), or a database clock shifted past the lease ({@link
 * ShiftedClockDialect}).
 */
public abstract class AbstractSendPauseCompatibilityTest extends DatabaseSuite {
    private static final Duration LEASE = Duration.ofSeconds(60);
    private static final Duration SEND_TIMEOUT = Duration.ofSeconds(20);
    /** The queue's margin: a twentieth of the lease, at most 2 s. */
    private static final Duration MARGIN = Duration.ofSeconds(2);

    private TestDatabase db;
    private Baton baton;
    private Dialect dialect;
    private JobsTable jobs;

    @Override
    protected void setUp() {
        db = database();
        baton = Baton.using(db.dataSource());
        dialect = baton.dialect();
    }

    @BeforeEach
    void freshTable() {
        jobs = JobsTable.create(db, "pause", true);
    }

    @AfterEach
    void dropTable() {
        jobs.drop();
    }

    private Baton at(Duration shift) {
        return Baton.builder(db.dataSource())
                .dialect(new ShiftedClockDialect(dialect, shift.toMillis()))
                .build();
    }

    private ClaimQueue<Sync> queue(Baton b) {
        return JobsTable.sendingQueue(b, jobs.name(), LEASE, SEND_TIMEOUT);
    }

    private static void await(String what, BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("timed out waiting for " + what);
            }
            Thread.sleep(20);
        }
    }

    private static long id(Object id) {
        return ((Number) id).longValue();
    }

    // ---- the local deadline

    @Test
    void aClaimPausedPastItsLeaseIsNotMarkedSendingAndNoSqlIsSent() throws Exception {
        jobs.insert(1, 1, Payment.PAID);
        FaultyDataSource recorded = new FaultyDataSource(db);
        Baton b = Baton.builder(recorded).dialect(dialect).build();
        ClaimQueue<Sync> q = JobsTable.sendingQueue(b, jobs.name(), Duration.ofSeconds(1));
        ClaimedRow<Sync> row = q.claim(1).get(0);
        Thread.sleep(1100); // paused past the lease; no heartbeat ran, nobody swept
        recorded.arm(null);
        LeaseResult<Sync> r = q.markSending(row);
        assertInstanceOf(LeaseResult.TooLate.class, r, "a claim past its local deadline is not marked: " + r);
        assertEquals(0, recorded.stepCount(), "no SQL for it:" + recorded.describe());
        assertTrue(row.leaseLost());
        assertThrows(LeaseLostException.class, row::checkLease);
        assertEquals(Sync.PROCESSING, jobs.sync(1), "still the claim's, unmarked");
        assertEquals(row.token(), id(jobs.get(1, "claim_token")));
    }

    @Test
    void aSendThatCouldOutliveItsClaimIsNotMarkedUntilAHeartbeatRenewsIt() throws Exception {
        jobs.insert(1, 1, Payment.PAID);
        FaultyDataSource recorded = new FaultyDataSource(db);
        Baton b = Baton.builder(recorded).dialect(dialect).build();
        // lease 2 s, margin 100 ms: 1.9 s of local deadline; a send may take 900 ms
        ClaimQueue<Sync> q = JobsTable.sendingQueue(b, jobs.name(), Duration.ofSeconds(2), Duration.ofMillis(900));
        ClaimedRow<Sync> row = q.claim(1).get(0);
        Thread.sleep(1100); // 800 ms left: less than the send may take
        recorded.arm(null);
        LeaseResult<Sync> r = q.markSending(row);
        assertInstanceOf(LeaseResult.TooLate.class, r, "" + r);
        Duration left = ((LeaseResult.TooLate<Sync>) r).remaining();
        assertTrue(!left.isNegative() && left.compareTo(Duration.ofMillis(900)) < 0, "" + left);
        assertEquals(0, recorded.stepCount(), "no SQL:" + recorded.describe());
        row.checkLease(); // the claim itself is still good
        assertTrue(q.heartbeat(row).done());
        assertTrue(row.remaining().compareTo(Duration.ofMillis(1500)) > 0, "the heartbeat renewed the deadline");
        assertTrue(q.markSending(row).done(), "now the send fits");
        assertEquals(Sync.SENDING, jobs.sync(1));
        Duration send = row.sendTimeLeft();
        assertTrue(send.compareTo(Duration.ofMillis(900)) <= 0 && send.toMillis() > 500, "" + send);
    }

    // ---- the reconcile quarantine

    @Test
    void aQuarantinedUnknownSendIsNotOfferedToTheReconciler() throws Exception {
        jobs.insert(1, 1, Payment.PAID);
        ClaimQueue<Sync> q = queue(baton);
        ClaimedRow<Sync> row = q.claim(1).get(0);
        assertTrue(q.markSending(row).done());
        // the sender pauses; just after its lease the sweep finds the send expired
        Duration justAfter = LEASE.plusSeconds(1);
        assertEquals(1, queue(at(justAfter)).reclaimExpired());
        assertEquals(Sync.UNKNOWN, jobs.sync(1));
        assertEquals(List.of(), queue(at(justAfter)).unknownSends().ready(10), "in quarantine");
        Duration inQuarantine = LEASE.plus(SEND_TIMEOUT).plus(MARGIN).minusSeconds(2);
        assertEquals(List.of(), queue(at(inQuarantine)).unknownSends().ready(10), "still in quarantine");

        Set<Long> asked = ConcurrentHashMap.newKeySet();
        Baton soon = at(inQuarantine);
        Worker early = soon.worker(queue(soon))
                .sweepInterval(Duration.ofMillis(50))
                .handle(r -> Outcome.complete(Sync.COMPLETED))
                .reconcile(Long.class, id -> {
                    asked.add(id);
                    return Outcome.release();
                })
                .start();
        try {
            Thread.sleep(600); // a dozen sweeps
        } finally {
            early.close();
        }
        assertEquals(Set.of(), asked, "the reconciler was not asked while the sender may still wake up");
        assertEquals(Sync.UNKNOWN, jobs.sync(1), "skipped, not released");

        Duration past = LEASE.plus(SEND_TIMEOUT).plus(MARGIN).plusSeconds(2);
        assertEquals(List.of(1L), queue(at(past)).unknownSends().ready(10, Long.class));
        Baton later = at(past);
        Worker late = later.worker(queue(later))
                .sweepInterval(Duration.ofMillis(50))
                .handle(r -> Outcome.complete(Sync.COMPLETED).set("third_party_guid", "resent"))
                .reconcile(Long.class, id -> {
                    asked.add(id);
                    return Outcome.release();
                })
                .start();
        try {
            await("the reconciler was asked after the quarantine", () -> asked.contains(1L));
            await("the row was sent again", () -> jobs.sync(1) == Sync.COMPLETED);
        } finally {
            late.close();
        }
    }

    @Test
    void aHandlerFailureAfterTheMarkIsQuarantinedForTheSendTimeout() {
        jobs.insert(1, 1, Payment.PAID);
        ClaimQueue<Sync> q = queue(baton);
        ClaimedRow<Sync> row = q.claim(1).get(0);
        assertTrue(q.markSending(row).done());
        assertTrue(q.apply(row, Outcome.unknown("read timed out")).done());
        assertEquals(List.of(), q.unknownSends().ready(10), "what the handler started may still reach the sink");
        assertEquals(List.of(), queue(at(SEND_TIMEOUT)).unknownSends().ready(10));
        assertEquals(
                List.of(1L),
                queue(at(SEND_TIMEOUT.plus(MARGIN).plusSeconds(1)))
                        .unknownSends()
                        .ready(10, Long.class));
    }

    // ---- the worker's reconciliation

    private void unknownRows(int count) {
        jobs.insert(1, count, Payment.PAID);
        // past any quarantine: moved to UNKNOWN with no lease, as by an earlier version
        db.execute("UPDATE " + jobs.name() + " SET sync_status = " + Sync.UNKNOWN.code()
                + ", attempts = 1, lease_until = NULL, claim_token = NULL");
    }

    @Test
    void aReconcilerThatThrowsForOneRowStillReconcilesTheOthers() throws Exception {
        unknownRows(3);
        Map<Long, Integer> calls = new ConcurrentHashMap<>();
        AtomicInteger errors = new AtomicInteger();
        Baton b = Baton.builder(db.dataSource())
                .dialect(dialect)
                .listener(new BatonListener() {
                    @Override
                    public void onWorkerError(String queue, Throwable error) {
                        errors.incrementAndGet();
                    }
                })
                .build();
        Worker worker = b.worker(queue(b))
                .sweepInterval(Duration.ofMillis(50))
                .handle(r -> Outcome.complete(Sync.COMPLETED))
                .reconcile(Long.class, id -> {
                    calls.merge(id, 1, Integer::sum);
                    if (id == 1L) {
                        throw new IOException("the sink's lookup timed out for order 1");
                    }
                    return Outcome.<Sync>complete(Sync.COMPLETED).set("third_party_guid", "found-" + id);
                })
                .start();
        try {
            await(
                    "rows 2 and 3 reconciled though row 1's lookup fails: " + calls,
                    () -> jobs.sync(2) == Sync.COMPLETED && jobs.sync(3) == Sync.COMPLETED);
            await("row 1 asked again at a later sweep", () -> calls.getOrDefault(1L, 0) >= 2);
        } finally {
            worker.close();
        }
        assertEquals(Sync.UNKNOWN, jobs.sync(1), "the failing row stays unknown");
        assertEquals("found-2", jobs.get(2, "third_party_guid"));
        assertTrue(errors.get() >= 2, "each failure told to onWorkerError: " + errors.get());
    }

    @Test
    void rowsTheReconcilerCannotTellYetDoNotHoldUpTheRowsAfterThem() throws Exception {
        unknownRows(105); // more than one page of 100
        Map<Long, Integer> calls = new ConcurrentHashMap<>();
        Worker worker = baton.worker(queue(baton))
                .sweepInterval(Duration.ofMillis(50))
                .handle(r -> Outcome.complete(Sync.COMPLETED))
                .reconcile(Long.class, id -> {
                    calls.merge(id, 1, Integer::sum);
                    // the first 101 rows: the sink cannot tell yet
                    return id <= 101 ? null : Outcome.<Sync>complete(Sync.COMPLETED);
                })
                .start();
        try {
            await(
                    "rows 102..105 reconciled behind 101 that cannot tell yet",
                    () -> jobs.countBySync().getOrDefault(Sync.COMPLETED, 0) == 4);
        } finally {
            worker.close();
        }
        assertEquals(101, jobs.countBySync().get(Sync.UNKNOWN));
    }

    // ---- one lost lease, one count

    @Test
    void oneLostLeaseIsCountedOnce() throws Exception {
        jobs.insert(1, 1, Payment.PAID);
        AtomicInteger lost = new AtomicInteger();
        Baton b = Baton.builder(db.dataSource())
                .dialect(dialect)
                .listener(new BatonListener() {
                    @Override
                    public void onLeaseLost(String queue, Object id) {
                        lost.incrementAndGet();
                    }
                })
                .build();
        ClaimQueue<Sync> q = JobsTable.queue(b, jobs.name(), Duration.ofSeconds(3));
        CountDownLatch started = new CountDownLatch(1);
        CountDownLatch returned = new CountDownLatch(1);
        AtomicInteger interrupted = new AtomicInteger();
        Worker worker = b.worker(q)
                .heartbeat(Duration.ofMillis(500))
                .pollInterval(Duration.ofMillis(20), Duration.ofMillis(100))
                .handle(r -> {
                    if (r.attempt() > 1) { // the claim that took the row over after the sweep
                        return Outcome.<Sync>complete(Sync.COMPLETED).set("third_party_guid", "retaken");
                    }
                    started.countDown();
                    long end = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(3000);
                    while (System.nanoTime() < end) { // a call that ignores interrupts
                        try {
                            Thread.sleep(50);
                        } catch (InterruptedException e) {
                            interrupted.incrementAndGet();
                        }
                    }
                    returned.countDown();
                    return Outcome.<Sync>complete(Sync.COMPLETED).set("third_party_guid", "stale");
                })
                .start();
        try {
            assertTrue(started.await(20, TimeUnit.SECONDS));
            // another claim takes the row over (as after an expiry and a reclaim)
            db.execute("UPDATE " + jobs.name() + " SET claim_token = claim_token + 1 WHERE id = 1");
            assertTrue(returned.await(20, TimeUnit.SECONDS));
            await("the stale outcome was refused", () -> worker.inFlight() == 0);
            Thread.sleep(600); // a heartbeat tick more, for a wrong second count to show
        } finally {
            worker.close();
        }
        assertEquals(1, lost.get(), "one lost lease counted once (handler interrupted " + interrupted.get() + "x)");
        assertTrue(!"stale".equals(jobs.get(1, "third_party_guid")), "the stale outcome wrote nothing");
    }
}
