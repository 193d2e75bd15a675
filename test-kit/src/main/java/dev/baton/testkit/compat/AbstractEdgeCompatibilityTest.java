package dev.baton.testkit.compat;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.baton.Baton;
import dev.baton.ClaimQueue;
import dev.baton.ClaimedRow;
import dev.baton.Decision;
import dev.baton.EnqueueResult;
import dev.baton.IllegalVerdictException;
import dev.baton.LeaseResult;
import dev.baton.Message;
import dev.baton.Outbox;
import dev.baton.Outcome;
import dev.baton.RetryPolicy;
import dev.baton.Worker;
import dev.baton.spi.Dialect;
import dev.baton.testkit.DatabaseSuite;
import dev.baton.testservers.DatabaseKind;
import dev.baton.testservers.TestDatabase;
import dev.baton.testservers.TestDatabases;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import java.util.function.Function;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Exactly once at the edges of a claim queue: shutdown during a send, outcomes the database refuses,
 * crash loops, reconciler verdicts, and stale tokens after a sweep, whatever the driver reports. Lease expiry is
 * simulated by shifting the database clock ({@link ShiftedClockDialect}).
 */
public abstract class AbstractEdgeCompatibilityTest extends DatabaseSuite {
    private static final Duration LEASE = Duration.ofSeconds(60);
    private static final Duration LATER = LEASE.plusSeconds(10);

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
        jobs = JobsTable.create(db, "edges", true);
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

    private static long id(ClaimedRow<?> row) {
        return ((Number) row.id()).longValue();
    }

    private static <S extends Enum<S>> List<ClaimedRow<S>> byId(List<ClaimedRow<S>> rows) {
        List<ClaimedRow<S>> sorted = new ArrayList<>(rows);
        sorted.sort(Comparator.comparingLong(AbstractEdgeCompatibilityTest::id));
        return sorted;
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

    private int attempts(long id) {
        return ((Number) jobs.get(id, "attempts")).intValue();
    }

    // ---- 1. shutdown never re-sends

    @Test
    void shutdownLeavesARowBeingSentToItsLeaseWithABlockingHandler() throws Exception {
        shutdownDuringASend(false);
    }

    @Test
    void shutdownLeavesARowBeingSentToItsLeaseWithAnInterruptibleHandler() throws Exception {
        shutdownDuringASend(true);
    }

    private void shutdownDuringASend(boolean interruptible) throws Exception {
        jobs.insert(1, 1, Payment.PAID);
        ClaimQueue<Sync> q = jobs.sendingQueue(baton, LEASE);
        AtomicInteger sends = new AtomicInteger();
        CountDownLatch inCall = new CountDownLatch(1);
        CountDownLatch answer = new CountDownLatch(1);
        Worker worker = baton.worker(q)
                .batchSize(1)
                .concurrency(2)
                .pollInterval(Duration.ofMillis(20), Duration.ofMillis(100))
                .shutdownTimeout(Duration.ofMillis(300))
                .handle(row -> {
                    sends.incrementAndGet();
                    inCall.countDown();
                    if (interruptible) {
                        Thread.sleep(60_000); // the interrupt abandons the call: its outcome is unknown
                    } else {
                        while (true) { // a socket read that ignores interrupts
                            try {
                                if (answer.await(60, TimeUnit.SECONDS)) {
                                    break;
                                }
                            } catch (InterruptedException ignored) {
                                // not interruptible
                            }
                        }
                    }
                    return Outcome.complete(Sync.COMPLETED);
                })
                .start();
        try {
            assertTrue(inCall.await(20, TimeUnit.SECONDS), "the send started");
        } finally {
            worker.close();
        }
        Sync after = jobs.sync(1);
        assertTrue(after == Sync.SENDING || after == Sync.UNKNOWN, "never back to PENDING at shutdown, was " + after);
        assertEquals(0, q.claim(10).size(), "nothing to claim again");
        ClaimQueue<Sync> later = jobs.sendingQueue(at(LATER), LEASE);
        later.reclaimExpired();
        assertEquals(Sync.UNKNOWN, jobs.sync(1), "the expired send awaits reconciliation");
        assertEquals(0, later.claim(10).size());
        answer.countDown();
        assertEquals(1, sends.get(), "the sink was called exactly once");
    }

    @Test
    void releaseMovesOnlyProcessingRowsAndGivesTheAttemptBack() {
        jobs.insert(1, 2, Payment.PAID);
        ClaimQueue<Sync> q = jobs.sendingQueue(baton, LEASE);
        List<ClaimedRow<Sync>> rows = byId(q.claim(2));
        assertEquals(1, rows.get(0).attempt());
        assertTrue(q.release(rows.get(0)).done());
        assertEquals(Sync.PENDING, jobs.sync(1));
        assertEquals(0, attempts(1), "the release gave the attempt back");
        assertTrue(q.markSending(rows.get(1)).done());
        assertInstanceOf(LeaseResult.LeaseLost.class, q.release(rows.get(1)), "a row being sent is never released");
        assertEquals(Sync.SENDING, jobs.sync(2));
        ClaimedRow<Sync> again = q.claim(1).get(0);
        assertEquals(1L, id(again));
        assertEquals(1, again.attempt(), "the next claim reports the same attempt number");
    }

    // ---- 2. one unwritable outcome never stalls the batch

    @Test
    void aUniqueViolationFromOutcomeSetDeadLettersOnlyItsRow() throws Exception {
        db.execute("CREATE UNIQUE INDEX ux_" + jobs.name() + "_guid ON " + jobs.name() + " (third_party_guid)");
        jobs.insert(4, 1, Payment.PENDING);
        db.execute("UPDATE " + jobs.name() + " SET third_party_guid = 'taken' WHERE id = 4");
        String error = poisonBatch(row -> Outcome.<Sync>complete(Sync.COMPLETED).set("third_party_guid", "taken"));
        String lower = error.toLowerCase(java.util.Locale.ROOT);
        assertTrue(lower.contains("duplicate") || lower.contains("unique"), "the database's error: " + error);
    }

    @Test
    void aNulInTheErrorTextIsSanitised() throws Exception {
        String error = poisonBatch(row -> Outcome.deadLetter("broker said: \0 bad frame"));
        assertEquals("broker said: ? bad frame", error);
    }

    @Test
    void anErrorLongerThanTheColumnIsCutToItsWidth() throws Exception {
        db.execute(
                switch (db.kind()) {
                    case POSTGRES -> "ALTER TABLE " + jobs.name() + " ALTER COLUMN last_error TYPE VARCHAR(200)";
                    case SQLSERVER -> "ALTER TABLE " + jobs.name() + " ALTER COLUMN last_error VARCHAR(200) NULL";
                    case MARIADB, MYSQL -> "ALTER TABLE " + jobs.name() + " MODIFY last_error VARCHAR(200) NULL";
                });
        String error = poisonBatch(row -> Outcome.deadLetter("x".repeat(400)));
        assertEquals("x".repeat(200), error);
    }

    @Test
    void anIllegalCompletionDeadLettersOnlyItsRow() throws Exception {
        String error = poisonBatch(row -> Outcome.complete(Sync.UNKNOWN)); // PROCESSING -> UNKNOWN is not allowed
        assertTrue(error.contains("UNKNOWN"), error);
    }

    /**
     * Rows 1..3 in one batch of a worker: rows 1 and 3 complete with a column set (the transaction path), row 2 gets
     * {@code poison}. Returns row 2's last_error after checking the rest.
     */
    private String poisonBatch(Function<ClaimedRow<Sync>, Outcome<Sync>> poison) throws Exception {
        jobs.insert(1, 3, Payment.PAID);
        ClaimQueue<Sync> q = jobs.queue(baton, LEASE);
        Map<Long, Integer> calls = new ConcurrentHashMap<>();
        Worker worker = baton.worker(q)
                .batchSize(3)
                .pollInterval(Duration.ofMillis(20), Duration.ofMillis(100))
                .handle(row -> {
                    long id = id(row);
                    calls.merge(id, 1, Integer::sum);
                    return id == 2
                            ? poison.apply(row)
                            : Outcome.<Sync>complete(Sync.COMPLETED).set("third_party_guid", "g" + id);
                })
                .start();
        try {
            await(
                    "rows 1 and 3 completed, row 2 dead",
                    () -> jobs.sync(1) == Sync.COMPLETED
                            && jobs.sync(3) == Sync.COMPLETED
                            && jobs.sync(2) == Sync.FAILED);
        } finally {
            worker.close();
        }
        assertEquals(Map.of(1L, 1, 2L, 1, 3L, 1), calls, "the handler ran exactly once per row");
        assertEquals("g1", jobs.get(1, "third_party_guid"));
        assertEquals("g3", jobs.get(3, "third_party_guid"));
        Object error = jobs.get(2, "last_error");
        assertNotNull(error, "row 2 carries the reason");
        return error.toString();
    }

    /**
     * A completion that waits on a row lock longer than the session's statement timeout (PostgreSQL 57014, MariaDB
     * {@code max_statement_time}, MySQL's lock wait timeout) failed for no fault of the row: it is retried or thrown and
     * the row left to its lease, never dead-lettered.
     */
    @Test
    void aStatementTimeoutWhileACompletionWaitsOnARowLockNeverDeadLettersTheRow() throws Exception {
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(db.jdbcUrl());
        if (db.user() != null) {
            config.setUsername(db.user());
        }
        if (db.password() != null) {
            config.setPassword(db.password());
        }
        config.setMaximumPoolSize(4);
        config.setConnectionInitSql(
                switch (db.kind()) {
                    case POSTGRES -> "SET statement_timeout = 1000";
                    case MARIADB -> "SET SESSION max_statement_time = 1";
                    default -> "SET SESSION innodb_lock_wait_timeout = 1";
                });
        try (HikariDataSource timed = new HikariDataSource(config)) {
            ClaimQueue<Sync> q = jobs.queue(Baton.using(timed), LEASE);
            jobs.insert(1, 3, Payment.PAID);
            List<ClaimedRow<Sync>> rows = byId(q.claim(3));
            assertEquals(3, rows.size());
            // one completion alone (autocommit), then two outcomes of the claim together (one transaction)
            List<Object> results = new ArrayList<>();
            results.add(whileLocked(List.of(1L), () -> List.of(q.complete(rows.get(0), Sync.COMPLETED))));
            results.add(whileLocked(
                    List.of(2L, 3L),
                    () -> q.applyAll(List.of(
                            new Decision<>(rows.get(1), Outcome.<Sync>complete(Sync.COMPLETED)),
                            new Decision<>(rows.get(2), Outcome.<Sync>retry("again"))))));
            for (long id = 1; id <= 3; id++) {
                Sync state = jobs.sync(id);
                assertNotEquals(
                        Sync.FAILED,
                        state,
                        "row " + id + " dead-lettered by a statement timeout; results " + results + ", last_error "
                                + jobs.get(id, "last_error"));
            }
            for (Object r : results) {
                if (r instanceof List<?> done) {
                    for (Object d : done) {
                        assertInstanceOf(LeaseResult.Done.class, d, "written once the lock went: " + results);
                    }
                }
            }
        }
    }

    /**
     * Runs {@code write} while another transaction holds the rows {@code ids} locked for 1.6 s; returns its results or
     * the exception it threw.
     */
    private Object whileLocked(List<Long> ids, java.util.function.Supplier<List<LeaseResult<Sync>>> write)
            throws Exception {
        java.sql.Connection holder = db.connect();
        holder.setAutoCommit(false);
        try (java.sql.Statement s = holder.createStatement()) {
            StringBuilder in = new StringBuilder();
            for (long id : ids) {
                in.append(in.length() == 0 ? "" : ", ").append(id);
            }
            s.executeQuery("SELECT id FROM " + jobs.name() + " WHERE id IN (" + in + ") FOR UPDATE")
                    .close();
        }
        Thread release = new Thread(() -> {
            try {
                Thread.sleep(1600);
                holder.commit();
                holder.close();
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
        release.start();
        try {
            return write.get();
        } catch (RuntimeException e) {
            return e; // thrown, not dead-lettered: the row is left to its lease
        } finally {
            release.join();
        }
    }

    // ---- 3. crashes dead-letter

    @Test
    void aRowWhoseLeaseExpiresOnItsLastAttemptIsDeadLettered() {
        jobs.insert(1, 1, Payment.PAID);
        for (int cycle = 1; cycle <= 3; cycle++) {
            Baton b = at(LATER.multipliedBy(cycle - 1L));
            ClaimQueue<Sync> q = crashQueue(b);
            List<ClaimedRow<Sync>> claimed = q.claim(1);
            assertEquals(cycle <= 2 ? 1 : 0, claimed.size(), "cycle " + cycle);
            crashQueue(at(LATER.multipliedBy(cycle))).reclaimExpired(); // the handler died with the process
        }
        assertEquals(Sync.FAILED, jobs.sync(1));
        assertEquals(2, attempts(1));
        assertNotNull(jobs.get(1, "last_error"));
    }

    private ClaimQueue<Sync> crashQueue(Baton b) {
        return b.<Sync>queue("crash-" + jobs.name())
                .table(jobs.name())
                .claim("sync_status", Sync.MACHINE, Sync.PENDING, Sync.PROCESSING)
                .deadState(Sync.FAILED)
                .lease(LEASE)
                .retry(RetryPolicy.fixed(Duration.ZERO).maxAttempts(2))
                .build();
    }

    /**
     * A message that crashes its dispatcher on every attempt goes dead after its last one, and then holds its key
     * until the operator requeues (or deletes) it, so that the later message of the key is never delivered before it
     *; the requeued message is delivered first.
     */
    @Test
    void aCrashLoopingOutboxMessageGoesDeadAndHoldsItsKeyUntilRequeued() {
        String table = TestDatabases.uniqueName("edge_outbox");
        assertTrue(baton.ownTables().createOutboxTable(table));
        try {
            Outbox.Options options = Outbox.Options.defaults()
                    .orderedPerKey(true)
                    .lease(LEASE)
                    .retry(RetryPolicy.fixed(Duration.ZERO).maxAttempts(2));
            Outbox outbox = baton.outbox(table, options);
            // the ids the server gave, not 1 and 2: Galera's auto_increment_increment is the cluster's size
            long first = ((EnqueueResult.Enqueued)
                            outbox.enqueue(Message.of("t", "first").key("k")))
                    .id();
            long second = ((EnqueueResult.Enqueued)
                            outbox.enqueue(Message.of("t", "second").key("k")))
                    .id();
            List<Long> claimedIds = new ArrayList<>();
            for (int cycle = 1; cycle <= 3; cycle++) {
                ClaimQueue<Outbox.Status> q = at(LATER.multipliedBy(cycle - 1L))
                        .outbox(table, options)
                        .queue();
                for (ClaimedRow<Outbox.Status> r : q.claim(10)) {
                    claimedIds.add(id(r));
                }
                at(LATER.multipliedBy(cycle)).outbox(table, options).queue().reclaimExpired();
            }
            assertEquals(List.of(first, first), claimedIds, "the first crashes twice and dies; the key stays held");
            assertEquals(1, baton.outbox(table, options).deadLetters().count(1000));
            assertInstanceOf(
                    dev.baton.TransitionResult.Applied.class,
                    baton.outbox(table, options).deadLetters().requeue(first));
            ClaimQueue<Outbox.Status> q =
                    at(LATER.multipliedBy(4)).outbox(table, options).queue();
            List<ClaimedRow<Outbox.Status>> next = q.claim(10);
            assertEquals(List.of(first), next.stream().map(r -> id(r)).toList(), "the requeued message first");
            q.complete(next.get(0), Outbox.Status.DELIVERED);
            assertEquals(List.of(second), q.claim(10).stream().map(r -> id(r)).toList(), "then the next of its key");
        } finally {
            db.dropTableIfExists(table);
        }
    }

    // ---- 4. reconciler verdicts

    @Test
    void verdictSentCompletesWithoutASend() throws Exception {
        verdict(Outcome.complete(Sync.COMPLETED), Sync.COMPLETED, 0);
    }

    @Test
    void verdictNotSentSendsOnceMore() throws Exception {
        verdict(Outcome.release(), Sync.COMPLETED, 1);
    }

    @Test
    void verdictDeadLetterMovesToTheDeadState() throws Exception {
        verdict(Outcome.deadLetter("give up"), Sync.FAILED, 0);
        assertEquals(dev.baton.DeadRow.MAY_HAVE_BEEN_SENT + "give up", jobs.get(1, "last_error"));
    }

    @Test
    void verdictUnknownLeavesTheRowUnknown() throws Exception {
        verdict(Outcome.unknown("cannot tell"), Sync.UNKNOWN, 0);
    }

    @Test
    void verdictNullLeavesTheRowUnknown() throws Exception {
        verdict(null, Sync.UNKNOWN, 0);
    }

    @Test
    void anyOtherVerdictIsRefusedAndTheRowLeftUnknown() throws Exception {
        verdict(Outcome.retry("again"), Sync.UNKNOWN, 0);
        ClaimQueue<Sync> q = jobs.sendingQueue(baton, LEASE);
        IllegalVerdictException e = assertThrows(
                IllegalVerdictException.class, () -> q.unknownSends().resolve(1L, Outcome.<Sync>retry("again")));
        assertEquals(1L, ((Number) e.id()).longValue());
        assertEquals(Sync.UNKNOWN, jobs.sync(1));
    }

    private void verdict(Outcome<Sync> verdict, Sync expected, int expectedSends) throws Exception {
        jobs.insert(1, 1, Payment.PAID);
        ClaimQueue<Sync> q = jobs.sendingQueue(baton, LEASE);
        ClaimedRow<Sync> row = q.claim(1).get(0);
        assertTrue(q.markSending(row).done());
        assertTrue(q.apply(row, Outcome.unknown("timeout reading the answer")).done());
        assertEquals(Sync.UNKNOWN, jobs.sync(1));
        AtomicInteger sends = new AtomicInteger();
        AtomicInteger asked = new AtomicInteger();
        // an unknown send waits out its quarantine by the database clock: the worker reads it later
        Baton later = at(LATER);
        Worker worker = later.worker(jobs.sendingQueue(later, LEASE))
                .batchSize(1)
                .pollInterval(Duration.ofMillis(20), Duration.ofMillis(50))
                .sweepInterval(Duration.ofMillis(50))
                .handle(r -> {
                    sends.incrementAndGet();
                    return Outcome.complete(Sync.COMPLETED);
                })
                .reconcile(id -> {
                    asked.incrementAndGet();
                    return verdict;
                })
                .start();
        try {
            if (expected == Sync.UNKNOWN) {
                await("the reconciler asked three times", () -> asked.get() >= 3);
            } else {
                await("the row reached " + expected, () -> jobs.sync(1) == expected && sends.get() == expectedSends);
                Thread.sleep(200); // time for a wrong second send to show
            }
        } finally {
            worker.close();
        }
        assertEquals(expected, jobs.sync(1));
        assertEquals(expectedSends, sends.get(), "sink calls");
    }

    // ---- 9. stale tokens never read as ours

    @Test
    void aStaleBatchCompletionAfterTheSweepAndAHostTransitionIsLeaseLost() {
        staleCompletion(() -> db.execute("UPDATE " + jobs.name() + " SET sync_status = 2 WHERE id IN (1, 2)"), false);
    }

    @Test
    void aStaleBatchCompletionAfterResolveUnknownIsLeaseLost() {
        staleCompletion(null, true);
    }

    private void staleCompletion(Runnable hostTransition, boolean viaUnknown) {
        jobs.insert(1, 2, Payment.PAID);
        ClaimQueue<Sync> q = jobs.sendingQueue(baton, LEASE);
        List<ClaimedRow<Sync>> rows = byId(q.claim(2));
        assertEquals(2, rows.size());
        if (viaUnknown) {
            for (ClaimedRow<Sync> r : rows) {
                assertTrue(q.markSending(r).done());
            }
            ClaimQueue<Sync> later = jobs.sendingQueue(at(LATER), LEASE);
            assertEquals(2, later.reclaimExpired(), "both sends expired to UNKNOWN");
            for (ClaimedRow<Sync> r : rows) {
                assertTrue(q.unknownSends()
                        .resolve(r.id(), Outcome.complete(Sync.COMPLETED))
                        .done());
            }
        } else {
            ClaimQueue<Sync> later = jobs.sendingQueue(at(LATER), LEASE);
            assertEquals(2, later.reclaimExpired());
            hostTransition.run();
        }
        List<LeaseResult<Sync>> results = q.applyAll(List.of(
                new Decision<>(rows.get(0), Outcome.complete(Sync.COMPLETED)),
                new Decision<>(rows.get(1), Outcome.complete(Sync.COMPLETED))));
        for (LeaseResult<Sync> r : results) {
            assertInstanceOf(LeaseResult.LeaseLost.class, r, "the stale worker wrote nothing: " + results);
        }
    }

    /**
     * The fenced batches on a data source whose driver may not report batch counts: MariaDB Connector/J with
     * {@code useBulkStmts=true} reports {@code SUCCESS_NO_INFO}; other databases run the same checks on their pool.
     */
    @Test
    void fencedBatchesReadRightWhateverTheDriverReports() {
        HikariDataSource bulk = null;
        DataSource ds = db.dataSource();
        if (db.kind() == DatabaseKind.MARIADB || db.kind() == DatabaseKind.MYSQL) {
            HikariConfig config = new HikariConfig();
            String url = db.jdbcUrl();
            config.setJdbcUrl(url + (url.contains("?") ? "&" : "?") + "useBulkStmts=true");
            if (db.user() != null) {
                config.setUsername(db.user());
            }
            if (db.password() != null) {
                config.setPassword(db.password());
            }
            config.setMaximumPoolSize(4);
            bulk = new HikariDataSource(config);
            ds = bulk;
        }
        try {
            Baton b = Baton.using(ds);
            jobs.insert(1, 6, Payment.PAID);
            ClaimQueue<Sync> q = jobs.sendingQueue(b, LEASE);
            // heartbeats of rows being sent are ours
            List<ClaimedRow<Sync>> sending = byId(q.claim(2));
            for (ClaimedRow<Sync> r : sending) {
                assertTrue(q.markSending(r).done());
            }
            for (LeaseResult<Sync> r : q.heartbeatAll(sending)) {
                assertTrue(r.done(), "heartbeat of a SENDING row: " + r);
            }
            // our own releases are ours, and give the attempt back
            List<ClaimedRow<Sync>> released = byId(q.claim(2));
            List<LeaseResult<Sync>> mine = q.applyAll(List.of(
                    new Decision<>(released.get(0), Outcome.release()),
                    new Decision<>(released.get(1), Outcome.release())));
            for (LeaseResult<Sync> r : mine) {
                assertTrue(r.done(), "our release: " + mine);
            }
            // stale releases after a reclaim are not
            List<ClaimedRow<Sync>> stale = byId(q.claim(2));
            assertEquals(2, stale.size());
            assertNotEquals(sending.get(0).id(), stale.get(0).id());
            ClaimQueue<Sync> later = jobs.sendingQueue(at(LATER), LEASE);
            later.reclaimExpired();
            List<LeaseResult<Sync>> results = q.applyAll(List.of(
                    new Decision<>(stale.get(0), Outcome.release()), new Decision<>(stale.get(1), Outcome.release())));
            for (LeaseResult<Sync> r : results) {
                assertInstanceOf(LeaseResult.LeaseLost.class, r, "a stale release after a reclaim: " + results);
            }
        } finally {
            if (bulk != null) {
                bulk.close();
            }
        }
    }

    /**
     * An id stored as text reads as a {@link UUID} only in the canonical 36-character form;
     * the JDK's parser took a truncated id ({@code …-42661417400}) for {@code …-042661417400}, a UUID naming no row.
     */
    @Test
    void aTextIdReadsAsAUuidOnlyInItsCanonicalForm() {
        String table = TestDatabases.uniqueName("uuidq");
        ClaimQueue<Sync> queue = baton.<Sync>queue("uuid-ids")
                .table(table)
                .id("id")
                .claim("sync_status", Sync.MACHINE, Sync.PENDING, Sync.PROCESSING)
                .deadState(Sync.FAILED)
                .lease(LEASE)
                .build();
        List<String> ddl = new ArrayList<>(queue.createTableSql());
        ddl.set(0, ddl.get(0).replaceFirst("BIGINT|bigint", "VARCHAR(40)"));
        db.execute(ddl.toArray(new String[0]));
        try {
            String canonical = "123e4567-e89b-12d3-a456-426614174000";
            String truncated = "123e4567-e89b-12d3-a456-42661417400";
            db.execute("INSERT INTO " + table + " (id, sync_status) VALUES ('" + canonical + "', 0), ('" + truncated
                    + "', 0)");
            List<ClaimedRow<Sync>> rows = queue.claim(2);
            assertEquals(2, rows.size());
            for (ClaimedRow<Sync> row : rows) {
                if (row.id().equals(canonical)) {
                    assertEquals(UUID.fromString(canonical), row.id(UUID.class));
                } else {
                    assertEquals(truncated, row.id());
                    assertThrows(ClassCastException.class, () -> row.id(UUID.class), "the truncated id read as a UUID");
                }
            }
        } finally {
            db.dropTableIfExists(table);
        }
    }
}
