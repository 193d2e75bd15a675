package dev.baton.testkit.compat;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.baton.Baton;
import dev.baton.ClaimQueue;
import dev.baton.ClaimedRow;
import dev.baton.ConfigurationException;
import dev.baton.Decision;
import dev.baton.IllegalTransitionException;
import dev.baton.LeaseResult;
import dev.baton.Outcome;
import dev.baton.QueueHealth;
import dev.baton.RetryPolicy;
import dev.baton.SchemaMismatchException;
import dev.baton.Worker;
import dev.baton.spi.Dialect;
import dev.baton.testkit.DatabaseSuite;
import dev.baton.testkit.faults.FaultyDataSource;
import dev.baton.testkit.faults.Step;
import dev.baton.testkit.faults.StepKind;
import dev.baton.testservers.DatabaseKind;
import dev.baton.testservers.TestDatabase;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The behaviour of claim queues, defined once and run by every dialect module against real servers. Lease expiry is
 * simulated by shifting the database clock ({@link ShiftedClockDialect}), never by reading the JVM clock.
 */
public abstract class AbstractClaimQueueCompatibilityTest extends DatabaseSuite {
    private static final Duration LEASE = Duration.ofSeconds(60);

    private TestDatabase db;
    private Baton baton;
    private Dialect dialect;
    private JobsTable jobs;
    private final List<JobsTable> extra = new ArrayList<>();

    @Override
    protected void setUp() {
        db = database();
        baton = Baton.using(db.dataSource());
        dialect = baton.dialect();
    }

    @BeforeEach
    void freshTable() {
        jobs = JobsTable.create(db, "jobs", true);
    }

    @AfterEach
    void dropTable() {
        jobs.drop();
    }

    @Override
    protected void tearDown() {
        extra.forEach(JobsTable::drop);
    }

    /** A Baton whose database clock runs {@code shift} ahead. */
    private Baton at(Duration shift) {
        return Baton.builder(db.dataSource())
                .dialect(new ShiftedClockDialect(dialect, shift.toMillis()))
                .build();
    }

    private static List<Long> ids(List<ClaimedRow<Sync>> rows) {
        List<Long> out = new ArrayList<>();
        for (ClaimedRow<Sync> r : rows) {
            out.add(((Number) r.id()).longValue());
        }
        return out;
    }

    @Test
    void claimsEligibleRowsInOrderAndStampsLeaseTokenAndAttempt() throws SQLException {
        jobs.insert(1, 3, Payment.PENDING); // not paid yet: never claimed
        jobs.insert(4, 6, Payment.PAID);
        db.execute("UPDATE " + jobs.name() + " SET third_party_guid = 'already' WHERE id = 5");
        ClaimQueue<Sync> q = jobs.queue(baton, LEASE);
        List<ClaimedRow<Sync>> first = q.claim(3);
        assertEquals(List.of(4L, 6L, 7L), ids(first));
        ClaimedRow<Sync> row = first.get(0);
        assertEquals(1, row.attempt());
        assertEquals("p4", row.get("payload"));
        assertEquals("sync-" + jobs.name() + ":4", row.idempotencyKey());
        assertEquals(Sync.PROCESSING, jobs.sync(4));
        assertEquals(row.token(), ((Number) jobs.get(4, "claim_token")).longValue());
        assertEquals(1, ((Number) jobs.get(4, "attempts")).intValue());
        try (Connection c = db.connect();
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT COUNT(*) FROM " + jobs.name() + " WHERE id = 4 AND lease_until > "
                        + db.kind().now() + " AND lease_until < "
                        + dialect.sql().plusMillis(db.kind().now(), LEASE.toMillis() + 5_000))) {
            rs.next();
            assertEquals(1, rs.getInt(1), "lease_until = database now + lease");
        }
        assertEquals(List.of(8L, 9L), ids(q.claim(3)), "a short batch is normal");
        assertTrue(q.claim(3).isEmpty());
        assertEquals(Sync.PENDING, jobs.sync(1));
        assertEquals(Sync.PENDING, jobs.sync(5));
        assertThrows(IllegalArgumentException.class, () -> row.get("secret"));
    }

    /**
     * A claim returns its rows in the queue's order even where the storage order differs: rows 1..3 are rewritten, so
     * on PostgreSQL their new versions lie after rows 4..1000 in the heap; with a small batch of a large table the
     * planner hashes the picked rows and scans the table, and an {@code UPDATE … RETURNING} then returned rows in heap
     * order, {@code [4, 5, 6, 1, 2, 3]} (seen flaky as [6, 1, 2] in a model test).
     */
    @Test
    void claimReturnsRowsInTheQueueOrderWhateverTheStorageOrder() {
        jobs.insert(1, 1000, Payment.PAID);
        db.execute("UPDATE " + jobs.name() + " SET payload = 'rewritten' WHERE id <= 3");
        if (db.kind() == DatabaseKind.POSTGRES) {
            db.execute("ANALYZE " + jobs.name()); // statistics that make the planner hash the 6 picked rows
        }
        assertEquals(
                List.of(1L, 2L, 3L, 4L, 5L, 6L), ids(jobs.queue(baton, LEASE).claim(6)));
    }

    @Test
    void completesWithExtraColumnsFencedByToken() {
        jobs.insert(1, 2, Payment.PAID);
        ClaimQueue<Sync> q = jobs.queue(baton, LEASE);
        List<ClaimedRow<Sync>> rows = q.claim(2);
        LeaseResult<Sync> done =
                q.apply(rows.get(0), Outcome.<Sync>complete(Sync.COMPLETED).set("third_party_guid", "guid-1"));
        assertEquals(new LeaseResult.Done<>(rows.get(0).id(), Sync.COMPLETED), done);
        assertEquals("guid-1", jobs.get(1, "third_party_guid"));
        assertNull(jobs.get(1, "lease_until"));
        assertEquals(
                new LeaseResult.Done<>(rows.get(0).id(), Sync.COMPLETED),
                q.complete(rows.get(0), Sync.COMPLETED),
                "a second completion by the same claim: the row is completed, by this claim, once");
        assertEquals("guid-1", jobs.get(1, "third_party_guid"), "and it wrote nothing");
        assertThrows(IllegalTransitionException.class, () -> q.complete(rows.get(1), Sync.UNKNOWN));
        assertEquals(Sync.PROCESSING, jobs.sync(2), "a refused outcome wrote nothing");
    }

    @Test
    void aWorkerWhoseLeaseExpiredIsFencedOut() {
        jobs.insert(1, 1, Payment.PAID);
        ClaimQueue<Sync> stale = jobs.queue(baton, LEASE);
        ClaimedRow<Sync> old = stale.claim(1).get(0);
        // the old worker pauses past its lease; by the database clock the lease has expired
        ClaimQueue<Sync> later = jobs.queue(at(LEASE.plusSeconds(10)), LEASE);
        assertEquals(1, later.reclaimExpired());
        ClaimedRow<Sync> fresh = later.claim(1).get(0);
        assertEquals(old.id(), fresh.id());
        assertEquals(2, fresh.attempt());
        assertTrue(fresh.token() != old.token());
        assertInstanceOf(LeaseResult.LeaseLost.class, stale.complete(old, Sync.COMPLETED));
        assertInstanceOf(LeaseResult.LeaseLost.class, stale.heartbeat(old));
        assertInstanceOf(LeaseResult.LeaseLost.class, stale.release(old));
        assertInstanceOf(LeaseResult.LeaseLost.class, stale.apply(old, Outcome.retry("late")));
        assertInstanceOf(LeaseResult.LeaseLost.class, stale.apply(old, Outcome.deadLetter("late")));
        assertEquals(Sync.PROCESSING, jobs.sync(1), "the stale writes changed nothing");
        assertEquals(fresh.token(), ((Number) jobs.get(1, "claim_token")).longValue());
        assertTrue(later.apply(fresh, Outcome.<Sync>complete(Sync.COMPLETED).set("third_party_guid", "g"))
                .done());
        assertEquals(Sync.COMPLETED, jobs.sync(1));
    }

    @Test
    void heartbeatsKeepTheLeaseAlive() {
        jobs.insert(1, 1, Payment.PAID);
        ClaimedRow<Sync> row = jobs.queue(baton, LEASE).claim(1).get(0);
        ClaimQueue<Sync> at40 = jobs.queue(at(Duration.ofSeconds(40)), LEASE);
        assertTrue(at40.heartbeat(row).done()); // lease now ends at 40 s + 60 s
        ClaimQueue<Sync> at80 = jobs.queue(at(Duration.ofSeconds(80)), LEASE);
        assertEquals(0, at80.reclaimExpired(), "the extended lease still holds at 80 s");
        assertTrue(at80.claim(1).isEmpty());
        ClaimQueue<Sync> at120 = jobs.queue(at(Duration.ofSeconds(120)), LEASE);
        assertEquals(1, at120.reclaimExpired());
        assertEquals(Sync.PENDING, jobs.sync(1));
    }

    @Test
    void retriesBackOffByTheDatabaseClockAndDeadLetterAfterTheLastAttempt() {
        jobs.insert(1, 1, Payment.PAID);
        RetryPolicy policy = RetryPolicy.fixed(Duration.ofSeconds(10)).maxAttempts(3);
        List<Long> shifts = List.of(0L, 25L, 50L);
        for (int attempt = 1; attempt <= 3; attempt++) {
            long shift = shifts.get(attempt - 1);
            ClaimQueue<Sync> q = retrying(at(Duration.ofSeconds(shift)), policy);
            List<ClaimedRow<Sync>> rows = q.claim(1);
            assertEquals(1, rows.size(), "attempt " + attempt);
            assertEquals(attempt, rows.get(0).attempt());
            LeaseResult<Sync> r = q.apply(rows.get(0), Outcome.retry("boom " + attempt));
            if (attempt < 3) {
                assertEquals(new LeaseResult.Done<>(rows.get(0).id(), Sync.PENDING), r);
                assertTrue(q.claim(1).isEmpty(), "not due before the backoff");
                assertTrue(retrying(at(Duration.ofSeconds(shift + 5)), policy)
                        .claim(1)
                        .isEmpty());
            } else {
                assertEquals(new LeaseResult.Done<>(rows.get(0).id(), Sync.FAILED), r, "dead after the last attempt");
            }
        }
        assertEquals(Sync.FAILED, jobs.sync(1));
        assertEquals("boom 3", jobs.get(1, "last_error"));
        assertTrue(retrying(at(Duration.ofSeconds(500)), policy).claim(1).isEmpty(), "dead rows are never claimed");
    }

    /**
     * A row put back in the claimable state with its attempts used up (by a host, an older version's
     * sweep or release) is never claimed for an attempt past {@code maxAttempts} (it used to be claimed for attempt 4
     * and 6 of 3); the expiry sweep moves it to the dead state, keeping its last error, while a row with an attempt
     * left is claimed as usual.
     */
    @Test
    void aRowPutBackWithItsAttemptsUsedUpIsNeverClaimedAndTheSweepDeadLettersIt() {
        jobs.insert(1, 4, Payment.PAID);
        RetryPolicy policy = RetryPolicy.fixed(Duration.ofSeconds(10)).maxAttempts(3);
        db.execute(
                "UPDATE " + jobs.name() + " SET attempts = 3, last_error = 'boom 3' WHERE id = 1",
                "UPDATE " + jobs.name() + " SET attempts = 5 WHERE id = 2",
                "UPDATE " + jobs.name() + " SET attempts = 2 WHERE id = 3");
        ClaimQueue<Sync> q = retrying(baton, policy);
        assertEquals(2, q.health().eligible(), "rows 3 and 4 can be claimed");
        List<ClaimedRow<Sync>> rows = q.claim(4);
        assertEquals(List.of(3L, 4L), ids(rows), "the spent rows are passed over");
        assertEquals(List.of(3, 1), rows.stream().map(ClaimedRow::attempt).toList());
        assertTrue(q.claim(4).isEmpty());
        assertEquals(Sync.PENDING, jobs.sync(1));
        assertEquals(2, q.reclaimExpired(), "the sweep moves the two spent rows, and no leased row");
        assertEquals(Map.of(Sync.FAILED, 2, Sync.PROCESSING, 2), jobs.countBySync());
        assertEquals(Sync.FAILED, jobs.sync(1));
        assertEquals(Sync.FAILED, jobs.sync(2));
        assertEquals("boom 3", jobs.get(1, "last_error"), "the last attempt's error is kept");
        assertEquals(3, ((Number) jobs.get(1, "attempts")).intValue());
        assertNull(jobs.get(2, "claim_token"));
        assertEquals(0, q.reclaimExpired());
        assertTrue(retrying(at(Duration.ofSeconds(500)), policy).claim(4).isEmpty(), "dead rows are never claimed");
    }

    /**
     * Completing a row into a terminal state that this claim already completed it into answers the same alone, in a
     * one-statement batch and in a transaction of mixed outcomes: {@code Done} (the single write used to answer
     * {@code LeaseLost} where the batch answered {@code Done}). Into another state it is {@code LeaseLost} every way.
     */
    @Test
    void aRepeatedCompletionAnswersDoneAloneAndInABatch() {
        jobs.insert(1, 4, Payment.PAID);
        ClaimQueue<Sync> q = jobs.queue(baton, LEASE);
        List<ClaimedRow<Sync>> rows = q.claim(4);
        ClaimedRow<Sync> one = rows.get(0);
        ClaimedRow<Sync> two = rows.get(1);
        ClaimedRow<Sync> three = rows.get(2);
        ClaimedRow<Sync> four = rows.get(3);
        assertTrue(q.complete(one, Sync.COMPLETED).done());
        assertTrue(q.applyAll(completions(List.of(two, three))).stream().allMatch(LeaseResult::done));
        LeaseResult.Done<Sync> oneDone = new LeaseResult.Done<>(one.id(), Sync.COMPLETED);
        LeaseResult.Done<Sync> twoDone = new LeaseResult.Done<>(two.id(), Sync.COMPLETED);
        assertEquals(oneDone, q.complete(one, Sync.COMPLETED), "alone, after alone");
        assertEquals(twoDone, q.complete(two, Sync.COMPLETED), "alone, after a batch");
        assertEquals(List.of(oneDone, twoDone), q.applyAll(completions(List.of(one, two))), "in a batch");
        assertEquals(
                List.of(
                        new LeaseResult.Done<>(three.id(), Sync.COMPLETED),
                        new LeaseResult.Done<>(four.id(), Sync.PENDING)),
                q.applyAll(List.of(
                        new Decision<>(three, Outcome.complete(Sync.COMPLETED)),
                        new Decision<>(four, Outcome.retry("again")))),
                "in a transaction of mixed outcomes");
        assertInstanceOf(LeaseResult.LeaseLost.class, q.complete(one, Sync.FAILED), "into another state");
        assertInstanceOf(LeaseResult.LeaseLost.class, q.apply(one, Outcome.deadLetter("late")));
        assertEquals(
                List.of(new LeaseResult.LeaseLost<Sync>(one.id()), new LeaseResult.LeaseLost<Sync>(two.id())),
                q.applyAll(List.of(
                        new Decision<>(one, Outcome.complete(Sync.FAILED)),
                        new Decision<>(two, Outcome.complete(Sync.FAILED)))),
                "into another state, in a batch");
        assertInstanceOf(LeaseResult.LeaseLost.class, q.apply(four, Outcome.retry("again")), "not terminal");
        assertEquals(Map.of(Sync.COMPLETED, 3, Sync.PENDING, 1), jobs.countBySync());
    }

    private ClaimQueue<Sync> retrying(Baton b, RetryPolicy policy) {
        return b.<Sync>queue("retry-" + jobs.name())
                .table(jobs.name())
                .claim("sync_status", Sync.MACHINE, Sync.PENDING, Sync.PROCESSING)
                .deadState(Sync.FAILED)
                .lease(LEASE)
                .retry(policy)
                .build();
    }

    @Test
    void groupCompletionCommitsOnceAndReportsFencedOutRows() {
        jobs.insert(1, 21, Payment.PAID);
        ClaimQueue<Sync> q = jobs.queue(baton, LEASE);
        ClaimedRow<Sync> stale = q.claim(1).get(0);
        ClaimQueue<Sync> later = jobs.queue(at(LEASE.plusSeconds(10)), LEASE);
        later.reclaimExpired();
        List<ClaimedRow<Sync>> rows = later.claim(21);
        assertEquals(21, rows.size());
        List<Decision<Sync>> decisions = new ArrayList<>();
        decisions.add(new Decision<>(stale, Outcome.complete(Sync.COMPLETED)));
        for (int i = 0; i < rows.size(); i++) {
            ClaimedRow<Sync> r = rows.get(i);
            Outcome<Sync> o = i < 10
                    ? Outcome.<Sync>complete(Sync.COMPLETED).set("third_party_guid", "g" + r.id())
                    : i < 15 ? Outcome.retry("again") : i < 20 ? Outcome.deadLetter("no") : Outcome.release();
            decisions.add(new Decision<>(r, o));
        }
        List<LeaseResult<Sync>> results = later.applyAll(decisions);
        assertInstanceOf(LeaseResult.LeaseLost.class, results.get(0), "the stale claim is fenced out");
        for (int i = 1; i < results.size(); i++) {
            assertTrue(results.get(i).done(), "row " + i + ": " + results.get(i));
        }
        Map<Sync, Integer> counts = jobs.countBySync();
        assertEquals(Map.of(Sync.COMPLETED, 10, Sync.PENDING, 6, Sync.FAILED, 5), counts);
    }

    @Test
    void batchCompletedInOneStatementStillFencesEachRow() {
        jobs.insert(1, 5, Payment.PAID);
        ClaimQueue<Sync> q = jobs.queue(baton, LEASE);
        List<ClaimedRow<Sync>> mine = q.claim(5);
        assertEquals(5, mine.size());
        ClaimQueue<Sync> later = jobs.queue(at(LEASE.plusSeconds(10)), LEASE);
        // the first two leases are renewed at the later clock; the other three expire and go to another worker
        assertTrue(later.heartbeatAll(mine.subList(0, 2)).stream().allMatch(LeaseResult::done));
        assertEquals(3L, later.reclaimExpired());
        List<ClaimedRow<Sync>> theirs = later.claim(5);
        assertEquals(3, theirs.size());
        List<LeaseResult<Sync>> results = q.applyAll(completions(mine));
        for (int i = 0; i < 5; i++) {
            if (i < 2) {
                assertEquals(new LeaseResult.Done<>(mine.get(i).id(), Sync.COMPLETED), results.get(i), "row " + i);
            } else {
                assertInstanceOf(LeaseResult.LeaseLost.class, results.get(i), "row " + i + " is fenced out");
            }
        }
        assertEquals(Map.of(Sync.COMPLETED, 2, Sync.PROCESSING, 3), jobs.countBySync());
        assertTrue(later.applyAll(completions(theirs)).stream().allMatch(LeaseResult::done), "the new owner's");
        assertEquals(Map.of(Sync.COMPLETED, 5), jobs.countBySync());
        List<LeaseResult<Sync>> repeat = q.applyAll(completions(mine));
        assertEquals(
                List.of(true, true, false, false, false),
                repeat.stream().map(LeaseResult::done).toList(),
                "a repeat changes nothing; rows this claim completed stay done under it");
        assertEquals(Map.of(Sync.COMPLETED, 5), jobs.countBySync());
    }

    /**
     * Completions that set columns go out as one fenced statement per claim and column set, each row getting its own
     * value, and report each row exactly: a row whose lease was lost in the same batch stays untouched and reports
     * {@code LeaseLost}.
     */
    @Test
    void completionsThatSetColumnsTakeOneStatementPerClaimAndColumnSetAndFenceEachRow() throws SQLException {
        jobs.insert(1, 8, Payment.PAID);
        ClaimQueue<Sync> q = jobs.queue(baton, LEASE);
        List<ClaimedRow<Sync>> first = q.claim(5); // rows 1..5, one token
        ClaimQueue<Sync> later = jobs.queue(at(LEASE.plusSeconds(10)), LEASE);
        // rows 1..3 are renewed at the later clock; 4 and 5 expire and go to another claim
        assertTrue(later.heartbeatAll(first.subList(0, 3)).stream().allMatch(LeaseResult::done));
        assertEquals(2L, later.reclaimExpired());
        List<ClaimedRow<Sync>> second = later.claim(5); // rows 4..8 under a second token
        assertEquals(List.of(4L, 5L, 6L, 7L, 8L), ids(second));
        FaultyDataSource counted = new FaultyDataSource(db);
        ClaimQueue<Sync> recorded =
                jobs.queue(Baton.builder(counted).dialect(dialect).build(), LEASE);
        List<Decision<Sync>> decisions = new ArrayList<>();
        for (ClaimedRow<Sync> r : first) { // 1..3 held; 4 and 5 lost to the second claim
            decisions.add(
                    new Decision<>(r, Outcome.<Sync>complete(Sync.COMPLETED).set("third_party_guid", "a" + r.id())));
        }
        for (ClaimedRow<Sync> r : second.subList(2, 5)) { // 6..8: the guid and the error column, each row its own
            decisions.add(new Decision<>(
                    r,
                    Outcome.<Sync>complete(Sync.COMPLETED)
                            .set("third_party_guid", r.id().equals(7L) ? null : "b" + r.id())
                            .set("last_error", "e" + r.id())));
        }
        counted.arm(null);
        List<LeaseResult<Sync>> results = recorded.applyAll(decisions);
        counted.disarm();
        List<Step> updates = counted.steps().stream()
                .filter(s -> s.kind() == StepKind.UPDATE || s.kind() == StepKind.BATCH)
                .toList();
        assertEquals(2, updates.size(), "one statement per claim and column set:" + counted.describe());
        assertTrue(counted.steps().stream().noneMatch(s -> s.kind() == StepKind.COMMIT), counted.describe());
        for (int i = 0; i < 3; i++) {
            assertEquals(new LeaseResult.Done<>(first.get(i).id(), Sync.COMPLETED), results.get(i), "row " + (i + 1));
            assertEquals("a" + (i + 1), jobs.get(i + 1, "third_party_guid"));
        }
        for (int i = 3; i < 5; i++) {
            assertInstanceOf(LeaseResult.LeaseLost.class, results.get(i), "row " + (i + 1) + " is fenced out");
            assertEquals(Sync.PROCESSING, jobs.sync(i + 1));
            assertNull(jobs.get(i + 1, "third_party_guid"));
        }
        for (int i = 5; i < 8; i++) {
            assertEquals(new LeaseResult.Done<>((long) (i + 1), Sync.COMPLETED), normalized(results.get(i)));
        }
        assertEquals("b6", jobs.get(6, "third_party_guid"));
        assertNull(jobs.get(7, "third_party_guid"));
        assertEquals("b8", jobs.get(8, "third_party_guid"));
        assertEquals("e6", jobs.get(6, "last_error"));
        assertEquals("e7", jobs.get(7, "last_error"));
        assertEquals(Map.of(Sync.COMPLETED, 6, Sync.PROCESSING, 2), jobs.countBySync());
        // a repeat of the first claim's batch changes nothing and reports what that claim completed
        assertEquals(
                List.of(true, true, true, false, false),
                recorded.applyAll(decisions.subList(0, 5)).stream()
                        .map(LeaseResult::done)
                        .toList());
        assertEquals("a1", jobs.get(1, "third_party_guid"));
    }

    /**
     * Baton's transactions run at READ COMMITTED without asking the driver for the isolation level every time (pgjdbc
     * answers with a round trip): a physical connection found at READ COMMITTED is asked once; one at another level is
     * set to READ COMMITTED for each transaction and given its level back. Where each transaction sets its own level
     * ({@code DialectTraits.isolationPerTransaction()}, PostgreSQL), the connection's level is never asked.
     */
    @Test
    void theIsolationLevelIsAskedOncePerPhysicalConnectionAndRestored() throws SQLException {
        jobs.insert(1, 3, Payment.PAID);
        AtomicInteger asked = new AtomicInteger();
        try (Connection physical = db.connect()) {
            physical.setTransactionIsolation(Connection.TRANSACTION_READ_COMMITTED);
            ClaimQueue<Sync> q = jobs.queue(
                    Baton.builder(oneConnection(physical, asked))
                            .dialect(dialect)
                            .build(),
                    LEASE);
            List<ClaimedRow<Sync>> rows = q.claim(3);
            for (int i = 0; i < 3; i++) {
                assertTrue(q.heartbeatAll(rows).stream().allMatch(LeaseResult::done)); // one transaction each
            }
            assertTrue(asked.get() <= 1, "asked " + asked.get() + " times");
        }
        asked.set(0);
        try (Connection physical = db.connect()) {
            physical.setTransactionIsolation(Connection.TRANSACTION_REPEATABLE_READ);
            ClaimQueue<Sync> q = jobs.queue(
                    Baton.builder(oneConnection(physical, asked))
                            .dialect(dialect)
                            .build(),
                    LEASE);
            List<ClaimedRow<Sync>> rows = q.claim(3);
            assertEquals(0, rows.size(), "claimed above");
            ClaimQueue<Sync> later = jobs.queue(
                    Baton.builder(oneConnection(physical, asked))
                            .dialect(new ShiftedClockDialect(
                                    dialect, LEASE.plusSeconds(10).toMillis()))
                            .build(),
                    LEASE);
            assertEquals(3L, later.reclaimExpired());
            rows = later.claim(3);
            asked.set(0);
            for (int i = 0; i < 2; i++) {
                assertTrue(later.heartbeatAll(rows).stream().allMatch(LeaseResult::done));
                assertEquals(Connection.TRANSACTION_REPEATABLE_READ, physical.getTransactionIsolation(), "restored");
            }
            if (dialect.traits().isolationPerTransaction()) {
                // each transaction sets its own level (SET TRANSACTION): the connection's is neither asked nor changed
                assertEquals(0, asked.get(), "asked although each transaction sets its level");
            } else {
                assertEquals(2, asked.get(), "a connection at another level is asked at every transaction");
            }
        }
    }

    /** Hands out {@code physical} every time (closing it leaves it open), counting isolation-level questions. */
    private static javax.sql.DataSource oneConnection(Connection physical, AtomicInteger asked) {
        Connection kept = (Connection) java.lang.reflect.Proxy.newProxyInstance(
                Connection.class.getClassLoader(), new Class<?>[] {Connection.class}, (p, m, args) -> {
                    if (m.getName().equals("close")) {
                        return null;
                    }
                    if (m.getName().equals("getTransactionIsolation")) {
                        asked.incrementAndGet();
                    }
                    try {
                        return m.invoke(physical, args);
                    } catch (java.lang.reflect.InvocationTargetException e) {
                        throw e.getCause();
                    }
                });
        return (javax.sql.DataSource) java.lang.reflect.Proxy.newProxyInstance(
                javax.sql.DataSource.class.getClassLoader(), new Class<?>[] {javax.sql.DataSource.class}, (p, m, a) -> {
                    if (m.getName().equals("getConnection")) {
                        return kept;
                    }
                    throw new UnsupportedOperationException(m.getName());
                });
    }

    private static LeaseResult<Sync> normalized(LeaseResult<Sync> r) {
        return r instanceof LeaseResult.Done<Sync> d
                ? new LeaseResult.Done<>(((Number) d.id()).longValue(), d.state())
                : r;
    }

    private static List<Decision<Sync>> completions(List<ClaimedRow<Sync>> rows) {
        List<Decision<Sync>> decisions = new ArrayList<>();
        for (ClaimedRow<Sync> r : rows) {
            decisions.add(new Decision<>(r, Outcome.complete(Sync.COMPLETED)));
        }
        return decisions;
    }

    @Test
    void concurrentClaimersNeverShareARow() throws Exception {
        int rows = 2000;
        int threads = 8;
        int batch = 10;
        jobs.insert(1, rows, Payment.PAID);
        ClaimQueue<Sync> q = jobs.queue(baton, LEASE);
        Map<Long, Integer> claims = new ConcurrentHashMap<>();
        Map<Long, Integer> completions = new ConcurrentHashMap<>();
        AtomicInteger overBatch = new AtomicInteger();
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            List<Future<?>> futures = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                futures.add(pool.submit(() -> {
                    int empty = 0;
                    while (empty < 3) {
                        List<ClaimedRow<Sync>> got = q.claim(batch);
                        if (got.size() > batch) {
                            overBatch.incrementAndGet();
                        }
                        if (got.isEmpty()) {
                            empty++;
                            continue;
                        }
                        empty = 0;
                        List<Decision<Sync>> ds = new ArrayList<>();
                        for (ClaimedRow<Sync> r : got) {
                            claims.merge(((Number) r.id()).longValue(), 1, Integer::sum);
                            ds.add(new Decision<>(
                                    r,
                                    Outcome.<Sync>complete(Sync.COMPLETED).set("third_party_guid", "t" + r.token())));
                        }
                        List<LeaseResult<Sync>> res = q.applyAll(ds);
                        for (LeaseResult<Sync> r : res) {
                            if (r.done()) {
                                completions.merge(((Number) r.id()).longValue(), 1, Integer::sum);
                            }
                        }
                    }
                    return null;
                }));
            }
            for (Future<?> f : futures) {
                f.get(120, TimeUnit.SECONDS);
            }
        } finally {
            pool.shutdownNow();
        }
        assertEquals(0, overBatch.get(), "no claim returned more than the batch");
        assertEquals(rows, claims.size(), "every row claimed");
        assertEquals(rows, completions.size(), "every row completed");
        assertTrue(claims.values().stream().allMatch(n -> n == 1), "no row claimed twice");
        assertTrue(completions.values().stream().allMatch(n -> n == 1), "no row completed twice");
        assertEquals(Map.of(Sync.COMPLETED, rows), jobs.countBySync());
    }

    @Test
    void workerProcessesEveryRowOnceAndStopsCleanly() throws Exception {
        int rows = 500;
        jobs.insert(1, rows, Payment.PAID);
        ClaimQueue<Sync> q = jobs.queue(baton, LEASE);
        Map<Object, Integer> handled = new ConcurrentHashMap<>();
        CountDownLatch all = new CountDownLatch(rows);
        Worker worker = baton.worker(q)
                .batchSize(20)
                .concurrency(4)
                .pollInterval(Duration.ofMillis(20), Duration.ofMillis(200))
                .handle(row -> {
                    handled.merge(row.id(), 1, Integer::sum);
                    all.countDown();
                    return Outcome.<Sync>complete(Sync.COMPLETED).set("third_party_guid", row.idempotencyKey());
                })
                .start();
        try {
            assertTrue(all.await(60, TimeUnit.SECONDS), "all rows handled");
            awaitState(Sync.COMPLETED, rows);
        } finally {
            worker.close();
        }
        assertFalse(worker.isRunning());
        assertEquals(rows, handled.size());
        assertTrue(handled.values().stream().allMatch(n -> n == 1));
    }

    @Test
    void handlerFailuresRetryAndNeverStopTheWorker() throws Exception {
        jobs.insert(1, 30, Payment.PAID);
        ClaimQueue<Sync> q = baton.<Sync>queue("flaky-" + jobs.name())
                .table(jobs.name())
                .claim("sync_status", Sync.MACHINE, Sync.PENDING, Sync.PROCESSING)
                .deadState(Sync.FAILED)
                .lease(LEASE)
                .retry(RetryPolicy.fixed(Duration.ZERO).maxAttempts(2))
                .build();
        Worker worker = baton.worker(q)
                .batchSize(7)
                .pollInterval(Duration.ofMillis(10), Duration.ofMillis(50))
                .handle(row -> {
                    long id = ((Number) row.id()).longValue();
                    if (id % 3 == 0) {
                        throw new IllegalStateException("sink down for " + id);
                    }
                    if (id % 3 == 1 && row.attempt() == 1) {
                        return null; // a buggy handler: treated as a failure
                    }
                    return Outcome.complete(Sync.COMPLETED);
                })
                .start();
        try {
            awaitState(Sync.FAILED, 10);
            awaitState(Sync.COMPLETED, 20);
            assertTrue(worker.isRunning());
        } finally {
            worker.close();
        }
        assertTrue(String.valueOf(jobs.get(3, "last_error")).contains("sink down for 3"));
        assertEquals(2, ((Number) jobs.get(3, "attempts")).intValue());
        assertEquals(2, ((Number) jobs.get(1, "attempts")).intValue());
    }

    @Test
    void gracefulShutdownReleasesWhatItCannotFinish() throws Exception {
        jobs.insert(1, 40, Payment.PAID);
        ClaimQueue<Sync> q = jobs.queue(baton, LEASE);
        AtomicInteger completedByHandler = new AtomicInteger();
        CountDownLatch started = new CountDownLatch(2);
        Worker worker = baton.worker(q)
                .batchSize(40)
                .concurrency(2)
                .shutdownTimeout(Duration.ofMillis(300))
                .handle(row -> {
                    started.countDown();
                    Thread.sleep(100);
                    completedByHandler.incrementAndGet();
                    return Outcome.complete(Sync.COMPLETED);
                })
                .start();
        assertTrue(started.await(30, TimeUnit.SECONDS));
        worker.close();
        assertFalse(worker.isRunning());
        Map<Sync, Integer> counts = jobs.countBySync();
        assertNull(counts.get(Sync.PROCESSING), "no row left claimed: " + counts);
        int completed = counts.getOrDefault(Sync.COMPLETED, 0);
        assertTrue(completed >= 1 && completed < 40, "some finished, the rest were released: " + counts);
        assertEquals(40, completed + counts.getOrDefault(Sync.PENDING, 0));
    }

    @Test
    void nonIdempotentSinkNeverSendsAnUncertainRowTwice() throws Exception {
        jobs.insert(1, 6, Payment.PAID);
        // a send timeout of 1 s: the failed send of row 2 waits that (and the margin) before its reconciliation, not
        // the default quarter of the lease
        ClaimQueue<Sync> q = JobsTable.sendingQueue(baton, jobs.name(), LEASE, Duration.ofSeconds(1));
        // 1. the send is recorded before the call; a crash after it leaves SENDING, which expiry turns into UNKNOWN
        ClaimedRow<Sync> crashed = q.claim(1).get(0);
        assertTrue(q.markSending(crashed).done());
        assertEquals(Sync.SENDING, jobs.sync(1));
        ClaimQueue<Sync> later = jobs.sendingQueue(at(LEASE.plusSeconds(10)), LEASE);
        assertEquals(1, later.reclaimExpired());
        assertEquals(Sync.UNKNOWN, jobs.sync(1), "never back to PENDING: it may have been sent");
        assertFalse(ids(later.claim(10)).contains(1L), "an unknown row is not claimed again");
        // the rows claimed just now by 'later' are released to keep the rest of the test simple
        for (long id = 2; id <= 6; id++) {
            db.execute("UPDATE " + jobs.name() + " SET sync_status = 0, lease_until = NULL WHERE id = " + id);
        }
        // 2. a worker: the sink fails for id 2 after the call may have gone out; the reconciler asks the sink
        Set<Long> sinkHas = ConcurrentHashMap.newKeySet();
        Map<Long, Integer> sends = new ConcurrentHashMap<>();
        Worker worker = baton.worker(q)
                .batchSize(5)
                .pollInterval(Duration.ofMillis(20), Duration.ofMillis(100))
                .sweepInterval(Duration.ofMillis(200))
                .handle(row -> {
                    long id = ((Number) row.id()).longValue();
                    row.checkLease();
                    sends.merge(id, 1, Integer::sum);
                    sinkHas.add(id);
                    if (id == 2) {
                        throw new java.io.IOException("timeout reading the sink's answer");
                    }
                    return Outcome.<Sync>complete(Sync.COMPLETED).set("third_party_guid", "g" + id);
                })
                .reconcile(id -> {
                    long key = ((Number) id).longValue();
                    if (key == 1) {
                        return null; // the sink cannot answer for row 1 yet: it stays unknown
                    }
                    return sinkHas.contains(key)
                            ? Outcome.<Sync>complete(Sync.COMPLETED).set("third_party_guid", "reconciled")
                            : Outcome.release();
                })
                .start();
        try {
            awaitState(Sync.COMPLETED, 5);
        } finally {
            worker.close();
        }
        assertEquals(Sync.UNKNOWN, jobs.sync(1), "the sink never got row 1: it waits for a reconciler that can tell");
        assertEquals("reconciled", jobs.get(2, "third_party_guid"));
        assertTrue(sends.values().stream().allMatch(n -> n == 1), "no row sent twice: " + sends);
        // 3. reconciliation of row 1: the sink does not have it, so it is sent again exactly once
        assertTrue(q.unknownSends().resolveNotSent(1L).done());
        assertInstanceOf(LeaseResult.LeaseLost.class, q.unknownSends().resolveNotSent(1L), "resolved once");
        assertEquals(Sync.PENDING, jobs.sync(1));
    }

    @Test
    void closeReturnsOnlyAfterTheSweepsLastWrite() throws Exception {
        // a host closes its Worker, then its data source (or drops the table in a test): a sweep still running then
        // would write to a closed pool or a table that is gone, after close() said the Worker was done
        jobs.insert(1, 1, Payment.PAID);
        db.execute("UPDATE " + jobs.name() + " SET sync_status = 5, lease_until = NULL WHERE id = 1"); // UNKNOWN
        ClaimQueue<Sync> q = jobs.sendingQueue(baton, LEASE);
        CountDownLatch asked = new CountDownLatch(1);
        AtomicBoolean inside = new AtomicBoolean();
        Worker worker = baton.worker(q)
                .pollInterval(Duration.ofMillis(20), Duration.ofMillis(100))
                .sweepInterval(Duration.ofMillis(100))
                .handle(row -> Outcome.complete(Sync.COMPLETED))
                .reconcile(id -> {
                    inside.set(true);
                    asked.countDown();
                    long end = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(400);
                    while (System.nanoTime() < end) {
                        Thread.onSpinWait(); // busy, as a blocking call that ignores interrupts would be
                    }
                    inside.set(false);
                    return Outcome.release(); // the sink never got it: back to PENDING
                })
                .start();
        try {
            assertTrue(asked.await(10, TimeUnit.SECONDS), "the sweep asked the reconciler");
        } finally {
            worker.close();
        }
        assertFalse(inside.get(), "close() returned while the sweep's reconciler was still running");
        assertEquals(Sync.PENDING, jobs.sync(1), "the sweep's verdict was written before close() returned");
    }

    @Test
    void workersOfOneQueueInOneProcessShareItsSweep() throws Exception {
        jobs.insert(1, 16, Payment.PAID);
        FaultyDataSource recorded = new FaultyDataSource(db);
        Baton watched = Baton.builder(recorded).dialect(dialect).build();
        // each round builds its own queue object: the shared sweep turn belongs to it
        int alone = sweepStatementsAtStart(recorded, watched, jobs.queue(watched, LEASE), 1);
        assertTrue(alone > 0, "one Worker sweeps when it starts");
        db.execute("UPDATE " + jobs.name() + " SET sync_status = 0");
        int eight = sweepStatementsAtStart(recorded, watched, jobs.queue(watched, LEASE), 8);
        assertEquals(alone, eight, "eight Workers of one queue started together sweep it once, as one Worker does");
    }

    /** Starts {@code workers} Workers on {@code q}, lets them drain it, and counts the expired-lease sweep statements. */
    private int sweepStatementsAtStart(FaultyDataSource recorded, Baton watched, ClaimQueue<Sync> q, int workers)
            throws Exception {
        String expiredGuard = "lease_until < " + dialect.sql().currentTimestamp();
        recorded.arm(null);
        List<Worker> started = new ArrayList<>();
        try {
            for (int i = 0; i < workers; i++) {
                started.add(watched.worker(q)
                        .batchSize(2)
                        .sweepInterval(Duration.ofMinutes(10))
                        .pollInterval(Duration.ofMillis(20), Duration.ofMillis(100))
                        .handle(row -> Outcome.complete(Sync.COMPLETED))
                        .start());
            }
            awaitState(Sync.COMPLETED, 16);
            Thread.sleep(300); // the schedulers' first sweeps run at start: give any late one time to show
        } finally {
            started.forEach(Worker::close);
        }
        int n = 0;
        for (Step step : recorded.steps()) {
            String sql = step.sql() == null ? "" : step.sql().replaceAll("[\"`\\[\\]]", "");
            if (sql.contains(expiredGuard)) {
                n++;
            }
        }
        return n;
    }

    @Test
    void aLostLeaseIsSignalledToTheRunningHandler() throws Exception {
        jobs.insert(1, 1, Payment.PAID);
        ClaimQueue<Sync> q = jobs.queue(baton, LEASE);
        CountDownLatch started = new CountDownLatch(1);
        CountDownLatch signalled = new CountDownLatch(1);
        AtomicInteger flagSeen = new AtomicInteger();
        Worker worker = baton.worker(q)
                .batchSize(1)
                .heartbeat(Duration.ofMillis(200))
                .pollInterval(Duration.ofMillis(20), Duration.ofMillis(100))
                .handle(row -> {
                    started.countDown();
                    try {
                        Thread.sleep(60_000); // a slow external call
                    } catch (InterruptedException e) {
                        if (row.leaseLost()) {
                            flagSeen.incrementAndGet();
                        }
                        signalled.countDown();
                        row.checkLease(); // throws LeaseLostException: the handler stops before any external call
                    }
                    return Outcome.complete(Sync.COMPLETED);
                })
                .start();
        try {
            assertTrue(started.await(30, TimeUnit.SECONDS));
            // the database clock says the lease expired; another worker reclaims and claims the row
            ClaimQueue<Sync> other = jobs.queue(at(LEASE.plusSeconds(10)), LEASE);
            // the sweep skips rows locked right now (SKIP LOCKED), and the worker's heartbeat locks the row every
            // 200 ms: sweep until it takes the row, as the next sweep tick would
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (other.reclaimExpired() == 0) {
                assertTrue(System.nanoTime() < deadline, "the expired lease is reclaimed");
                Thread.sleep(20);
            }
            ClaimedRow<Sync> stolen = other.claim(1).get(0);
            assertTrue(signalled.await(30, TimeUnit.SECONDS), "the handler was interrupted");
            assertEquals(1, flagSeen.get(), "and saw leaseLost()");
            assertTrue(other.complete(stolen, Sync.COMPLETED).done(), "the new owner completes");
            assertTrue(worker.isRunning());
        } finally {
            worker.close();
        }
        assertEquals(Sync.COMPLETED, jobs.sync(1));
        assertEquals(2, ((Number) jobs.get(1, "attempts")).intValue());
    }

    @Test
    void healthIsMeasuredByTheDatabase() {
        jobs.insert(1, 5, Payment.PAID);
        jobs.insert(6, 2, Payment.PENDING);
        ClaimQueue<Sync> q = jobs.queue(baton, LEASE);
        List<ClaimedRow<Sync>> rows = q.claim(2);
        q.apply(rows.get(0), Outcome.deadLetter("x"));
        QueueHealth h = q.health();
        assertEquals(3, h.eligible());
        assertEquals(2, h.waiting(), "unpaid rows wait");
        assertEquals(1, h.inFlight());
        assertEquals(0, h.expiredLeases());
        assertEquals(1, h.dead());
        assertNotNull(h.oldestEligibleAge());
        // the bounded reads: exact below their limit, stopped at it above
        QueueHealth bounded = q.health(100);
        assertEquals(
                List.of(h.eligible(), h.waiting(), h.inFlight(), h.expiredLeases(), h.dead(), h.unknown()),
                List.of(
                        bounded.eligible(),
                        bounded.waiting(),
                        bounded.inFlight(),
                        bounded.expiredLeases(),
                        bounded.dead(),
                        bounded.unknown()));
        assertNotNull(bounded.oldestEligibleAge());
        QueueHealth capped = q.health(2);
        assertEquals(
                List.of(2L, 2L, 1L, 1L),
                List.of(capped.eligible(), capped.waiting(), capped.inFlight(), capped.dead()));
        assertThrows(ConfigurationException.class, () -> q.health(0));
        assertThrows(ConfigurationException.class, () -> q.health(100_001));
        QueueHealth later = jobs.queue(at(LEASE.plusSeconds(5)), LEASE).health();
        assertEquals(1, later.expiredLeases());
        assertTrue(later.oldestEligibleAge().compareTo(LEASE) > 0);
        QueueHealth laterBounded = jobs.queue(at(LEASE.plusSeconds(5)), LEASE).health(100);
        assertEquals(List.of(1L, 0L), List.of(laterBounded.expiredLeases(), laterBounded.inFlight()));
        assertTrue(laterBounded.oldestEligibleAge().compareTo(LEASE) > 0);
    }

    @Test
    void badConfigurationIsRefusedBeforeAnySql() {
        ClaimQueue<Sync> q = jobs.queue(baton, LEASE);
        assertThrows(ConfigurationException.class, () -> q.claim(0));
        assertThrows(ConfigurationException.class, () -> q.claim(-1));
        assertThrows(ConfigurationException.class, () -> q.claim(q.maxBatchSize() + 1));
        assertThrows(ConfigurationException.class, () -> jobs.queue(baton, Duration.ZERO));
        assertThrows(ConfigurationException.class, () -> jobs.queue(baton, Duration.ofSeconds(-5)));
        assertThrows(ConfigurationException.class, () -> jobs.queue(baton, Duration.ofMillis(500)));
        assertThrows(ConfigurationException.class, () -> jobs.queue(baton, Duration.ofDays(2)));
        assertThrows(ConfigurationException.class, () -> baton.worker(q).batchSize(0));
        assertThrows(ConfigurationException.class, () -> baton.worker(q).batchSize(-1));
        assertThrows(ConfigurationException.class, () -> baton.worker(q).batchSize(5000));
        assertThrows(ConfigurationException.class, () -> baton.worker(q).concurrency(0));
        assertThrows(
                ConfigurationException.class,
                () -> baton.worker(q)
                        .heartbeat(Duration.ofSeconds(30))
                        .handle(r -> null)
                        .start(),
                "lease shorter than three heartbeats");
        assertThrows(ConfigurationException.class, () -> baton.worker(q).start(), "no handler");
        assertThrows(ConfigurationException.class, () -> baton.<Sync>queue(" ").table(jobs.name()));
        assertThrows(
                ConfigurationException.class,
                () -> baton.<Sync>queue("x")
                        .table(jobs.name())
                        .claim("sync_status", Sync.MACHINE, Sync.PENDING, Sync.PROCESSING)
                        .build(),
                "no dead state");
        assertThrows(
                IllegalTransitionException.class,
                () -> baton.<Sync>queue("x")
                        .table(jobs.name())
                        .claim("sync_status", Sync.MACHINE, Sync.PENDING, Sync.COMPLETED)
                        .deadState(Sync.FAILED)
                        .build(),
                "the claim transition must be allowed");
        assertThrows(dev.baton.InvalidIdentifierException.class, () -> baton.<Sync>queue("x")
                .table("jobs; DROP"));
        assertThrows(ConfigurationException.class, () -> Outcome.retryAfter(Duration.ofSeconds(-1), "x"));
        assertThrows(
                ConfigurationException.class, () -> Outcome.<Sync>retry("x").set("a", 1));
        assertEquals(Map.of(), jobs.countBySync(), "nothing was written");
    }

    @Test
    void verifyNamesMissingColumnsAndTheIndexTheClaimNeeds() {
        JobsTable bare = JobsTable.create(db, "bare", false);
        extra.add(bare);
        ClaimQueue<Sync> q = bare.queue(baton, LEASE);
        if (db.kind().plannerChecksClaimIndex()) {
            SchemaMismatchException e = assertThrows(SchemaMismatchException.class, q::verify);
            assertTrue(e.getMessage().contains("CREATE INDEX"), e.getMessage());
            db.execute(e.ddl().toArray(new String[0]));
        }
        q.verify();

        String partial = dev.baton.testservers.TestDatabases.uniqueName("partial");
        db.execute("CREATE TABLE " + partial + " (id BIGINT PRIMARY KEY, sync_status INT NOT NULL,"
                + " payment_status INT NOT NULL, third_party_guid VARCHAR(64))");
        try {
            ClaimQueue<Sync> p = baton.<Sync>queue("p")
                    .table(partial)
                    .claim("sync_status", Sync.MACHINE, Sync.PENDING, Sync.PROCESSING)
                    .deadState(Sync.FAILED)
                    .build();
            SchemaMismatchException missing = assertThrows(SchemaMismatchException.class, p::verify);
            assertTrue(missing.problems().size() >= 5, missing.getMessage());
            db.execute(missing.ddl().toArray(new String[0]));
            if (db.kind().plannerChecksClaimIndex()) {
                // with the columns in place, the planner check finds that no index serves the claim
                SchemaMismatchException index = assertThrows(SchemaMismatchException.class, p::verify);
                assertTrue(index.getMessage().contains("CREATE INDEX"), index.getMessage());
                db.execute(index.ddl().toArray(new String[0]));
            }
            p.verify();
        } finally {
            db.dropTableIfExists(partial);
        }
    }

    /** Waits until {@code count} rows are in {@code state} (polling the database). */
    protected void awaitState(Sync state, int count) throws InterruptedException {
        for (int i = 0; i < 600; i++) {
            if (jobs.countBySync().getOrDefault(state, 0) >= count) {
                return;
            }
            Thread.sleep(100);
        }
        throw new AssertionError("timed out waiting for " + count + " rows in " + state + ": " + jobs.countBySync());
    }
}
