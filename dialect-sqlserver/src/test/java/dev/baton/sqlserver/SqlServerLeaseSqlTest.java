package dev.baton.sqlserver;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.baton.Baton;
import dev.baton.ClaimQueue;
import dev.baton.ClaimQueueBuilder;
import dev.baton.ClaimedRow;
import dev.baton.DeadRow;
import dev.baton.Outcome;
import dev.baton.RetryPolicy;
import dev.baton.testkit.compat.Payment;
import dev.baton.testkit.compat.Sync;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The failover suite on SQL Server, by exact text: the statements of the expiry sweep, the release and the reconciler's verdict
 * (the paths that have no {@code sql()} method), recorded as Baton prepares them. Clearing the claim token on reclaim
 * and release, the attempt limit in the sweep and the dead verdict are what the PostgreSQL and MariaDB suites prove by
 * behaviour.
 */
class SqlServerLeaseSqlTest {
    /** A claim returns one row: id 7, attempt 1, the selected column, and the three order columns before the update. */
    private final SqlRecorder recorder = new SqlRecorder(
            0,
            sql -> sql.startsWith("WITH baton_claim")
                    ? List.<Object[]>of(new Object[] {7L, 1, "tx", 0, 1, 7L})
                    : List.<Object[]>of());

    private final Baton baton =
            Baton.builder(recorder.dataSource()).dialect(new SqlServerDialect()).build();
    private final ClaimQueue<Sync> queue = orderSync(baton)
            .nonIdempotentSink(Sync.SENDING, Sync.UNKNOWN)
            .retry(RetryPolicy.exponential(Duration.ofSeconds(5), 2.0).maxAttempts(3))
            .lease(Duration.ofMinutes(2))
            .build();

    /** The queue of these tests over {@code orders}: paid orders, selecting the payment's transaction id. */
    static ClaimQueueBuilder<Sync> orderSync(Baton baton) {
        return baton.<Sync>queue("order-sync")
                .table("orders")
                .claim("sync_status", Sync.MACHINE, Sync.PENDING, Sync.PROCESSING)
                .eligibleWhen(baton.table("orders")
                        .state("payment_status", Payment.MACHINE)
                        .is(Payment.PAID))
                .select("payment_transaction_id")
                .deadState(Sync.FAILED);
    }

    private ClaimedRow<Sync> claimOne() {
        List<ClaimedRow<Sync>> rows = queue.claim(10);
        assertEquals(1, rows.size());
        recorder.take();
        return rows.get(0);
    }

    @Test
    void theSweepDeadLettersExhaustedRowsAndClearsTokens() {
        queue.reclaimExpired();
        String attemptsLeft = recorder.bindsOf(0);
        String exhausted = recorder.bindsOf(1);
        String putBack = recorder.bindsOf(2);
        String sending = recorder.bindsOf(3);
        List<String> sql = recorder.take();
        String sweep =
                "UPDATE TOP (500) [orders] WITH (UPDLOCK, READPAST, ROWLOCK, READCOMMITTEDLOCK) SET [sync_status] = ?,"
                        + " [lease_until] = NULL, [claim_token] = NULL";
        assertEquals(
                List.of(
                        sweep + " WHERE [sync_status] = 1 AND [lease_until] < SYSUTCDATETIME() AND [attempts] < ?",
                        sweep + ", [last_error] = ? WHERE [sync_status] = 1 AND [lease_until] < SYSUTCDATETIME() AND"
                                + " [attempts] >= ?",
                        // found without locks (no index serves attempts), then locked by id (past locked rows) and
                        // moved by id
                        "SELECT TOP (500) [id] FROM [orders] WHERE [sync_status] = 0 AND [attempts] >= ?",
                        // An expired send keeps the end of its quarantine (send timeout 30 s + margin 2 s)
                        "UPDATE TOP (500) [orders] WITH (UPDLOCK, READPAST, ROWLOCK, READCOMMITTEDLOCK) SET [sync_status] = ?,"
                                + " [lease_until] = DATEADD(millisecond, 32000, [lease_until]), [claim_token] = NULL"
                                + " WHERE [sync_status] = 4 AND [lease_until] < SYSUTCDATETIME()"),
                sql);
        sql.forEach(SqlServerSqlTest::parse);
        assertEquals(List.of(Sync.PENDING.code(), 3).toString(), attemptsLeft, "back to PENDING below maxAttempts");
        assertTrue(
                exhausted.startsWith("[" + Sync.FAILED.code() + ", ") && exhausted.endsWith(", 3]"),
                "dead-lettered at maxAttempts, with a reason: " + exhausted);
        assertEquals(List.of(3).toString(), putBack, "claimable rows with their attempts used up are looked for");
        assertEquals(List.of(Sync.UNKNOWN.code()).toString(), sending, "expired SENDING rows go to UNKNOWN");
    }

    /**
     * The spent claimable rows found are locked by id, passing over rows other transactions hold (READPAST), and those
     * locked are moved by id, guarded by the conditions that found them.
     */
    @Test
    void spentClaimableRowsFoundAreLockedPastLockedOnesAndMovedByIdUnderTheSameGuard() {
        String lock =
                "SELECT [id] FROM [orders] WITH (UPDLOCK, ROWLOCK, READPAST, READCOMMITTEDLOCK) WHERE [id] IN (?, ?)";
        SqlRecorder found = new SqlRecorder(
                2,
                sql -> sql.startsWith("SELECT TOP (500) [id] FROM [orders] WHERE [sync_status] = 0") || sql.equals(lock)
                        ? List.<Object[]>of(new Object[] {7L}, new Object[] {9L})
                        : List.<Object[]>of());
        ClaimQueue<Sync> q = orderSync(Baton.builder(found.dataSource())
                        .dialect(new SqlServerDialect())
                        .build())
                .retry(RetryPolicy.exponential(Duration.ofSeconds(5), 2.0).maxAttempts(3))
                .build();
        q.reclaimExpired(); // every recorded update reports 2 rows: the count says nothing here
        List<String> sql = found.take();
        int locked = sql.indexOf(lock);
        int moved = sql.indexOf("UPDATE [orders] SET [sync_status] = ?, [lease_until] = NULL, [claim_token] = NULL"
                + " WHERE [id] IN (?, ?) AND [sync_status] = 0 AND [attempts] >= ?");
        assertTrue(locked >= 0 && moved > locked, sql.toString());
        sql.forEach(SqlServerSqlTest::parse);
    }

    /** Unknown sends are listed for reconciliation only once their quarantine (the lease column) ended. */
    @Test
    void unknownSendsAreListedAfterTheirQuarantine() {
        queue.unknownSends().ready(100);
        queue.unknownSends().readyAfter(7L, 100);
        String after = recorder.bindsOf(1);
        List<String> sql = recorder.take();
        String list = "SELECT TOP (100) [id] FROM [orders] WHERE [sync_status] = 5 AND ([lease_until] IS NULL OR"
                + " [lease_until] < SYSUTCDATETIME())";
        assertEquals(List.of(list + " ORDER BY [id]", list + " AND [id] > ? ORDER BY [id]"), sql);
        sql.forEach(SqlServerSqlTest::parse);
        assertEquals("[7]", after);
    }

    /** A handler that failed after the mark leaves its row unknown for the send timeout and the margin. */
    @Test
    void anUnknownOutcomeQuarantinesTheRowFromNow() {
        ClaimedRow<Sync> row = claimOne();
        queue.apply(row, Outcome.unknown("read timed out"));
        List<String> sql = recorder.take();
        assertEquals(
                "UPDATE [orders] SET [sync_status] = ?, [lease_until] = DATEADD(millisecond, 32000, SYSUTCDATETIME()),"
                        + " [last_error] = ? WHERE [id] = ? AND [claim_token] = ? AND [sync_status] IN (1, 4)",
                sql.get(0));
        SqlServerSqlTest.parse(sql.get(0));
    }

    /** The claim passes over rows that have used maxAttempts, in the pick and in the update. */
    @Test
    void theClaimPassesOverRowsWithTheirAttemptsUsedUp() {
        queue.claim(10);
        // statement 0 asks sys.triggers once (OUTPUT needs INTO on a table with triggers); 1 is the claim
        String binds = recorder.bindsOf(1);
        String claim = recorder.take().get(1);
        String guard = "[sync_status] = 0 AND [payment_status] = 1 AND ([next_attempt_at] IS NULL OR [next_attempt_at]"
                + " <= SYSUTCDATETIME()) AND [attempts] < ?";
        assertTrue(claim.contains(" WHERE " + guard + " ORDER BY "), claim);
        assertTrue(claim.endsWith(" WHERE " + guard), claim);
        SqlServerSqlTest.parse(claim);
        assertEquals(
                "[3, 1, TOKEN, 3]",
                binds.replaceAll("-?\\d{6,}", "TOKEN"),
                "maxAttempts is bound in the pick and in the update (the state codes are literals)");
    }

    @Test
    void releaseFencesProcessingOnlyClearsTheTokenAndGivesTheAttemptBack() {
        ClaimedRow<Sync> row = claimOne();
        queue.release(row);
        String binds = recorder.bindsOf(0);
        List<String> sql = recorder.take();
        assertEquals(
                "UPDATE [orders] SET [sync_status] = ?, [lease_until] = NULL, [claim_token] = ?, [attempts] ="
                        + " [attempts] - 1 WHERE [id] = ? AND [claim_token] = ? AND [sync_status] = 1",
                sql.get(0));
        SqlServerSqlTest.parse(sql.get(0));
        assertEquals(
                List.of(Sync.PENDING.code(), -row.token(), 7L, row.token()).toString(), binds, "the token is spent");
    }

    @Test
    void aDeadVerdictMovesAnUnknownRowToTheDeadStateAndClearsTheToken() {
        queue.unknownSends().resolve(7L, Outcome.deadLetter("the sink refused it"));
        String dead = recorder.bindsOf(0);
        queue.unknownSends().resolve(7L, Outcome.release());
        String exhausted = recorder.bindsOf(1);
        String notSent = recorder.bindsOf(2);
        List<String> sql = recorder.take();
        assertEquals(
                List.of(
                        "UPDATE [orders] SET [sync_status] = ?, [lease_until] = NULL, [claim_token] = NULL,"
                                + " [last_error] = ? WHERE [id] = ? AND [sync_status] = 5",
                        // not sent, but the row used its last attempt: dead-lettered (commit 6c20e01)
                        "UPDATE [orders] SET [sync_status] = ?, [lease_until] = NULL, [claim_token] = NULL,"
                                + " [last_error] = ? WHERE [id] = ? AND [sync_status] = 5 AND [attempts] >= ?",
                        "UPDATE [orders] SET [sync_status] = ?, [lease_until] = NULL, [claim_token] = NULL WHERE"
                                + " [id] = ? AND [sync_status] = 5"),
                sql);
        assertTrue(
                exhausted.startsWith("[" + Sync.FAILED.code() + ", ") && exhausted.endsWith(", 7, 3]"),
                "not sent at maxAttempts dead-letters: " + exhausted);
        sql.forEach(SqlServerSqlTest::parse);
        assertEquals(
                List.of(Sync.FAILED.code(), DeadRow.MAY_HAVE_BEEN_SENT + "the sink refused it", 7L)
                        .toString(),
                dead,
                "a dead verdict dead-letters");
        assertEquals(List.of(Sync.PENDING.code(), 7L).toString(), notSent, "not sent: claimable again");
    }
}
