package dev.baton.testkit.compat;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.baton.Baton;
import dev.baton.ClaimQueue;
import dev.baton.Message;
import dev.baton.Outbox;
import dev.baton.QueueHealth;
import dev.baton.RetryPolicy;
import dev.baton.Worker;
import dev.baton.spi.SqlVocabulary;
import dev.baton.testkit.DatabaseSuite;
import dev.baton.testservers.TestDatabase;
import dev.baton.testservers.TestDatabases;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.Test;

/**
 * The work a queue does besides its claims, and what it reports: the expiry sweep never waits on a row a host
 * transaction holds locked, a transaction's receipt cleanup costs its caller at most one bounded batch, and a message
 * held behind a dead message of its key is counted as waiting, not as eligible.
 */
public abstract class AbstractHousekeepingCompatibilityTest extends DatabaseSuite {
    /** How long a test waits for a call that must not wait on a lock: far beyond what it takes when it does not. */
    private static final long BOUND_SECONDS = 20;

    private TestDatabase db;
    private Baton baton;

    @Override
    protected void setUp() {
        db = database();
        baton = Baton.using(db.dataSource());
    }

    /**
     * A host transaction holds row 1 locked, a claimable row with its attempts used up; row 2's send expired. The
     * sweep skips row 1 and moves the expired send to UNKNOWN while the lock is held; row 1 goes to the dead state
     * once it is released.
     */
    @Test
    void theSweepSkipsARowAHostHoldsLockedAndMovesTheExpiredSendMeanwhile() throws Exception {
        JobsTable jobs = JobsTable.create(db, "sw_sweep", true);
        ExecutorService sweeper = Executors.newSingleThreadExecutor();
        try {
            jobs.insert(1, 2, Payment.PAID);
            SqlVocabulary sql = baton.dialect().sql();
            db.execute(
                    "UPDATE " + jobs.name() + " SET attempts = 10 WHERE id = 1", // maxAttempts is 10 by default
                    "UPDATE " + jobs.name() + " SET sync_status = " + Sync.SENDING.code() + ", attempts = 1,"
                            + " claim_token = 7, lease_until = " + sql.plusMillis(sql.currentTimestamp(), -60_000)
                            + " WHERE id = 2");
            ClaimQueue<Sync> q = jobs.sendingQueue(baton, Duration.ofSeconds(30));
            try (Connection host = db.connect()) {
                host.setAutoCommit(false);
                try (Statement s = host.createStatement()) {
                    s.executeUpdate("UPDATE " + jobs.name() + " SET payload = 'host' WHERE id = 1");
                }
                Future<Long> sweep = sweeper.submit(q::reclaimExpired);
                long moved;
                try {
                    moved = sweep.get(BOUND_SECONDS, TimeUnit.SECONDS);
                } catch (TimeoutException e) {
                    throw new AssertionError("reclaimExpired() had not returned after " + BOUND_SECONDS + " s while a"
                            + " host transaction held row 1 locked; the expired send is " + jobs.sync(2));
                } finally {
                    if (!sweep.isDone()) {
                        host.rollback(); // lets the waiting sweep end before the table is dropped
                    }
                }
                assertEquals(Sync.UNKNOWN, jobs.sync(2), "the expired send reached UNKNOWN while the lock was held");
                assertEquals(Sync.PENDING, jobs.sync(1), "the locked row was skipped");
                assertEquals(1, moved, "the sweep's count");
                host.rollback();
            }
            assertEquals(1, q.reclaimExpired(), "the released row is swept");
            assertEquals(Sync.FAILED, jobs.sync(1), "its attempts were used up");
        } finally {
            sweeper.shutdownNow();
            jobs.drop();
        }
    }

    /**
     * 5,000 receipts two hours old: the first transaction of a new instance deletes at most one batch of them after
     * its commit, and later transactions delete the rest, a batch each, without waiting for the next minute.
     */
    @Test
    void aTransactionDeletesAtMostOneBatchOfOldReceiptsAndLaterOnesTheRest() throws SQLException {
        int old = 5_000;
        String receipts = TestDatabases.uniqueName("sw_rcpt");
        assertTrue(baton.ownTables().createReceiptsTable(receipts));
        try {
            SqlVocabulary sql = baton.dialect().sql();
            try (Connection c = db.connect()) {
                c.setAutoCommit(false);
                try (PreparedStatement ps = c.prepareStatement("INSERT INTO " + receipts + " (receipt, created_at)"
                        + " VALUES (?, " + sql.plusMillis(sql.currentTimestamp(), -2 * 3_600_000L) + ")")) {
                    for (int i = 1; i <= old; i++) {
                        ps.setLong(1, -i); // the instance's receipts are random longs: a clash is 1 in 2^52 here
                        ps.addBatch();
                        if (i % 1000 == 0) {
                            ps.executeBatch();
                        }
                    }
                    ps.executeBatch();
                }
                c.commit();
            }
            Baton fresh = Baton.builder(db.dataSource()).receiptsTable(receipts).build();
            assertEquals(1, (int) fresh.inTransaction(c -> 1));
            int left = oldReceipts(receipts);
            assertTrue(
                    left >= old - 1000,
                    "the first inTransaction(c -> 1) of the instance deleted " + (old - left) + " of " + old
                            + " old receipts in its call (one batch is at most 1000)");
            for (int i = 0; i < 10 && left > 0; i++) {
                fresh.inTransaction(c -> 1);
                left = oldReceipts(receipts);
            }
            assertEquals(0, left, "later transactions deleted the rest");
        } finally {
            db.dropTableIfExists(receipts);
        }
    }

    private int oldReceipts(String table) throws SQLException {
        SqlVocabulary sql = baton.dialect().sql();
        try (Connection c = db.connect();
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT COUNT(*) FROM " + table + " WHERE created_at < "
                        + sql.plusMillis(sql.currentTimestamp(), -3_600_000L))) {
            rs.next();
            return rs.getInt(1);
        }
    }

    /**
     * Two messages of one key in an outbox ordered per key; the first dies. The second is held behind it until the dead
     * one is requeued or deleted: health counts it as waiting, not as eligible ("rows a worker could claim now").
     */
    @Test
    void aMessageHeldBehindADeadMessageOfItsKeyCountsAsWaitingNotEligible() throws Exception {
        String table = TestDatabases.uniqueName("sw_outbox");
        assertTrue(baton.ownTables().createOutboxTable(table));
        try {
            Outbox outbox = baton.outbox(
                    table,
                    Outbox.Options.defaults()
                            .orderedPerKey(true)
                            .retry(RetryPolicy.fixed(Duration.ZERO).maxAttempts(1)));
            outbox.enqueue(Message.of("payment.captured", "{}").key("merchant-42"));
            outbox.enqueue(Message.of("payment.refunded", "{}").key("merchant-42"));
            try (Worker w = outbox.dispatcher(m -> {
                        throw new IllegalStateException("broker refuses " + m.topic());
                    })
                    .pollInterval(Duration.ofMillis(20), Duration.ofMillis(100))
                    .start()) {
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(BOUND_SECONDS);
                while (outbox.deadLetters().count(1000) == 0 && System.nanoTime() < deadline) {
                    Thread.sleep(20);
                }
                assertTrue(w.isRunning());
            }
            assertEquals(1, outbox.deadLetters().count(1000), "the first message is dead");
            assertEquals(List.of(), outbox.queue().claim(10), "the second is held: no worker can claim it");
            QueueHealth health = outbox.queue().health();
            assertEquals(0, health.eligible(), "eligible: " + health);
            assertEquals(1, health.waiting(), "waiting: " + health);
            assertEquals(1, health.dead(), "dead: " + health);
            assertNull(health.oldestEligibleAge(), "no eligible message has an age: " + health);
            QueueHealth bounded = outbox.queue().health(100);
            assertEquals(0, bounded.eligible(), "eligible, counted up to 100: " + bounded);
            assertEquals(1, bounded.waiting(), "waiting, counted up to 100: " + bounded);
        } finally {
            db.dropTableIfExists(table);
        }
    }
}
