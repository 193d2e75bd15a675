package dev.baton.testkit.compat;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.baton.Baton;
import dev.baton.BeginResult;
import dev.baton.ConfigurationException;
import dev.baton.FinishResult;
import dev.baton.IdempotencyKeys;
import dev.baton.IdempotencyToken;
import dev.baton.IllegalKeyException;
import dev.baton.InvalidIdentifierException;
import dev.baton.PayloadTooLargeException;
import dev.baton.testkit.DatabaseSuite;
import dev.baton.testservers.DatabaseKind;
import dev.baton.testservers.TestDatabase;
import dev.baton.testservers.TestDatabases;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Timestamp;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The behaviour of {@link IdempotencyKeys}, defined once and run by every dialect module against real servers.
 * A dialect runs it as a nested class of its one parameterized test over its servers (see
 * {@link dev.baton.testkit.DatabaseSuite}):
 *
 * <pre>
 * &#64;Nested class IdempotencyKeys extends AbstractIdempotencyKeyCompatibilityTest {}</pre>
 *
 * Lease expiry is exercised with leases of a millisecond or a second, measured by the database clock: the tests wait
 * for the database to say a lease expired and never read the JVM clock for lease math. Each test class works in a
 * table of its own (random suffix).
 */
public abstract class AbstractIdempotencyKeyCompatibilityTest extends DatabaseSuite {
    /** Threads racing in the concurrency tests. */
    protected static final int RACERS = 50;

    private static final String FP = "sha256:9f86d081884c7d659a2feaa0c55ad015";
    private static final Duration WAIT = Duration.ofSeconds(20);

    private TestDatabase db;
    private DatabaseKind kind;
    private Baton baton;
    private String table;
    private IdempotencyKeys keys;
    private IdempotencyKeys quickLease;
    private final List<String> tables = new ArrayList<>();

    @Override
    protected void setUp() {
        db = database();
        kind = db.kind();
        baton = Baton.using(db.dataSource());
        table = TestDatabases.uniqueName("idem");
        tables.add(table);
        assertTrue(baton.ownTables().createIdempotencyKeysTable(table), "created");
        assertFalse(baton.ownTables().createIdempotencyKeysTable(table), "exists: nothing to do");
        keys = baton.idempotencyKeys(table);
        quickLease =
                baton.idempotencyKeys(table, IdempotencyKeys.Options.defaults().lease(Duration.ofSeconds(1)));
    }

    @Override
    protected void tearDown() {
        for (String t : tables) {
            db.dropTableIfExists(t);
        }
    }

    @BeforeEach
    void clean() {
        db.execute("DELETE FROM " + table);
    }

    @Test
    void schemaHelperValidatesNames() {
        assertThrows(InvalidIdentifierException.class, () -> baton.ownTables()
                .createIdempotencyKeysTable("keys; DROP TABLE " + table));
        assertThrows(InvalidIdentifierException.class, () -> baton.ownTables().idempotencyKeysDdl("a\"b"));
        assertThrows(InvalidIdentifierException.class, () -> baton.ownTables().idempotencyKeysDdl(null));
        // the derived index name (<table>_updated_at) must fit the database's identifier limit too
        String longest = "k".repeat(baton.dialect().traits().maxIdentifierLength() - "_updated_at".length());
        baton.ownTables().idempotencyKeysDdl(longest);
        assertThrows(InvalidIdentifierException.class, () -> baton.ownTables().idempotencyKeysDdl(longest + "k"));
        assertThrows(InvalidIdentifierException.class, () -> baton.idempotencyKeys("x y"));
        assertTrue(table(table));
    }

    @Test
    void startedThenCompletedReplaysTheStoredResponse() {
        BeginResult first = keys.begin("acct-1", "key-1", FP);
        BeginResult.Started started = assertInstanceOf(BeginResult.Started.class, first);
        assertEquals(1, started.attempt());
        assertFalse(started.takenOver());
        assertEquals(new IdempotencyToken("acct-1", "key-1", started.token().fence()), started.token());

        assertEquals(new BeginResult.InProgress("acct-1", "key-1"), keys.begin("acct-1", "key-1", FP));

        byte[] response = "{\"charge\":\"ch_1\",\"status\":201}".getBytes(StandardCharsets.UTF_8);
        assertEquals(new FinishResult.Finished(started.token()), keys.complete(started.token(), response));
        BeginResult.Completed replay = assertInstanceOf(BeginResult.Completed.class, keys.begin("acct-1", "key-1", FP));
        assertArrayEquals(response, replay.response());
        assertEquals("{\"charge\":\"ch_1\",\"status\":201}", replay.responseText());

        // completing again with the same token is a no-op that reports success (a retried call)
        assertTrue(keys.complete(started.token(), response).finished());
        // a key of another scope is another key
        assertInstanceOf(BeginResult.Started.class, keys.begin("acct-2", "key-1", FP));

        BeginResult.Started empty = assertInstanceOf(BeginResult.Started.class, keys.begin("acct-1", "empty", FP));
        assertTrue(keys.complete(empty.token(), new byte[0]).finished());
        assertArrayEquals(
                new byte[0],
                assertInstanceOf(BeginResult.Completed.class, keys.begin("acct-1", "empty", FP))
                        .response());
    }

    @Test
    void leaseIsStampedByTheDatabaseClock() throws SQLException {
        keys.begin("acct", "lease", FP);
        try (Connection c = db.connect();
                PreparedStatement ps = c.prepareStatement(
                        "SELECT locked_until, updated_at FROM " + table + " WHERE scope = ? AND idempotency_key = ?")) {
            ps.setString(1, "acct");
            ps.setString(2, "lease");
            try (ResultSet rs = ps.executeQuery()) {
                assertTrue(rs.next());
                Timestamp until = rs.getTimestamp(1);
                Timestamp updated = rs.getTimestamp(2);
                long leaseMillis = until.getTime() - updated.getTime();
                assertTrue(
                        Math.abs(leaseMillis - Duration.ofMinutes(5).toMillis()) < 1000,
                        "lease of 5 minutes from the database clock, was " + leaseMillis + " ms");
            }
        }
    }

    @Test
    void fiftyConcurrentBeginsStartExactlyOnce() throws Exception {
        for (int round = 0; round < 5; round++) {
            String key = "race-" + round;
            List<BeginResult> results = Races.run(RACERS, i -> keys.begin("acct", key, FP));
            assertEquals(1, Races.count(results, BeginResult.Started.class), results.toString());
            assertEquals(RACERS - 1, Races.count(results, BeginResult.InProgress.class), results.toString());
        }
    }

    @Test
    void fiftyConcurrentBeginsWithTheWinnerCompletingSeeOneResponse() throws Exception {
        for (int round = 0; round < 5; round++) {
            String key = "race-complete-" + round;
            List<BeginResult> results = Races.run(RACERS, i -> {
                BeginResult r = keys.begin("acct", key, FP);
                if (r instanceof BeginResult.Started s) {
                    FinishResult f = keys.complete(s.token(), ("winner-" + i).getBytes(StandardCharsets.UTF_8));
                    assertTrue(f.finished(), f.toString());
                }
                return r;
            });
            assertEquals(1, Races.count(results, BeginResult.Started.class), results.toString());
            int winner = -1;
            for (int i = 0; i < results.size(); i++) {
                if (results.get(i) instanceof BeginResult.Started) {
                    winner = i;
                }
            }
            for (BeginResult r : results) {
                if (r instanceof BeginResult.Completed c) {
                    assertEquals("winner-" + winner, c.responseText(), "every replay is the winner's response");
                } else if (!(r instanceof BeginResult.Started)) {
                    assertInstanceOf(BeginResult.InProgress.class, r);
                }
            }
            assertEquals(
                    "winner-" + winner,
                    assertInstanceOf(BeginResult.Completed.class, keys.begin("acct", key, FP))
                            .responseText());
        }
    }

    @Test
    void otherFingerprintIsAMismatchAndChangesNothing() throws SQLException {
        BeginResult.Started s = assertInstanceOf(BeginResult.Started.class, keys.begin("acct", "reuse", FP));
        String before = row("acct", "reuse");
        assertEquals(new BeginResult.Mismatch("acct", "reuse"), keys.begin("acct", "reuse", "sha256:other"));
        assertEquals(before, row("acct", "reuse"), "a mismatch writes nothing");

        assertTrue(keys.complete(s.token(), "done".getBytes(StandardCharsets.UTF_8))
                .finished());
        String completed = row("acct", "reuse");
        assertEquals(new BeginResult.Mismatch("acct", "reuse"), keys.begin("acct", "reuse", "sha256:other"));
        assertEquals(completed, row("acct", "reuse"));

        // an expired lease is not taken over by a different request either
        assertInstanceOf(BeginResult.Started.class, quickLease.begin("acct", "reuse-expired", FP));
        String expired = row("acct", "reuse-expired");
        awaitLeaseExpiry("acct", "reuse-expired");
        assertEquals(
                new BeginResult.Mismatch("acct", "reuse-expired"), keys.begin("acct", "reuse-expired", "sha256:other"));
        assertEquals(expired, row("acct", "reuse-expired"));
    }

    @Test
    void keysCompareExactly() {
        List<String> distinct = List.of("abc", "ABC", "Abc", "straße", "STRASSE", "strasse", "é", "e\u0301", "ключ-🔑");
        for (String k : distinct) {
            assertInstanceOf(BeginResult.Started.class, keys.begin("acct", k, FP), k);
        }
        for (String k : distinct) {
            assertInstanceOf(BeginResult.InProgress.class, keys.begin("acct", k, FP), k);
        }
        assertInstanceOf(BeginResult.Started.class, keys.begin("ACCT", "abc", FP), "scopes compare exactly too");
        assertEquals(distinct.size() + 1, count());
    }

    @Test
    void expiredLeaseIsTakenOverAndTheStaleOwnerIsFencedOut() throws SQLException {
        BeginResult.Started crashed =
                assertInstanceOf(BeginResult.Started.class, quickLease.begin("acct", "crash", FP));
        BeginResult.Started retry = awaitStarted(keys, "acct", "crash");
        assertEquals(2, retry.attempt(), "the retry took the key over");
        assertTrue(retry.takenOver());
        assertNotEquals(crashed.token().fence(), retry.token().fence(), "a new fencing token");
        assertEquals(new BeginResult.InProgress("acct", "crash"), keys.begin("acct", "crash", FP));

        String owned = row("acct", "crash");
        assertEquals(
                new FinishResult.LeaseLost(crashed.token()),
                keys.complete(crashed.token(), "stale".getBytes(StandardCharsets.UTF_8)));
        assertEquals(new FinishResult.LeaseLost(crashed.token()), keys.fail(crashed.token()));
        assertEquals(owned, row("acct", "crash"), "the stale owner changed nothing");

        assertTrue(keys.complete(retry.token(), "fresh".getBytes(StandardCharsets.UTF_8))
                .finished());
        assertEquals(
                "fresh",
                assertInstanceOf(BeginResult.Completed.class, keys.begin("acct", "crash", FP))
                        .responseText());
        assertEquals(
                new FinishResult.LeaseLost(crashed.token()),
                keys.complete(crashed.token(), "stale".getBytes(StandardCharsets.UTF_8)));
        assertEquals(
                "fresh",
                assertInstanceOf(BeginResult.Completed.class, keys.begin("acct", "crash", FP))
                        .responseText());
    }

    @Test
    void aOneSecondLeaseExpiresByTheDatabaseClock() {
        IdempotencyKeys oneSecond =
                baton.idempotencyKeys(table, IdempotencyKeys.Options.defaults().lease(Duration.ofSeconds(1)));
        assertInstanceOf(BeginResult.Started.class, oneSecond.begin("acct", "one-second", FP));
        assertEquals(new BeginResult.InProgress("acct", "one-second"), oneSecond.begin("acct", "one-second", FP));
        BeginResult.Started next = awaitStarted(oneSecond, "acct", "one-second");
        assertEquals(2, next.attempt());
    }

    @Test
    void failMakesTheKeyRetryable() {
        BeginResult.Started first = assertInstanceOf(BeginResult.Started.class, keys.begin("acct", "flaky", FP));
        assertEquals(new FinishResult.Finished(first.token()), keys.fail(first.token()));
        assertEquals(0, count(), "released: nothing stored");
        assertTrue(keys.fail(first.token()).finished(), "failing again is a no-op (a retried call)");

        BeginResult.Started second =
                assertInstanceOf(BeginResult.Started.class, keys.begin("acct", "flaky", "sha256:corrected"));
        assertEquals(1, second.attempt(), "a released key starts afresh, with any fingerprint");
        assertEquals(new FinishResult.LeaseLost(first.token()), keys.fail(first.token()));
        assertEquals(
                new FinishResult.LeaseLost(first.token()),
                keys.complete(first.token(), "late".getBytes(StandardCharsets.UTF_8)));
        assertEquals(new BeginResult.InProgress("acct", "flaky"), keys.begin("acct", "flaky", "sha256:corrected"));
    }

    @Test
    void callerTransactionFormsCommitAndRollBackWithTheCaller() throws SQLException {
        try (Connection c = db.dataSource().getConnection()) {
            c.setAutoCommit(false);
            BeginResult.Started s =
                    assertInstanceOf(BeginResult.Started.class, keys.begin(c, "acct", "tx-rollback", FP));
            assertTrue(keys.complete(c, s.token(), "never".getBytes(StandardCharsets.UTF_8))
                    .finished());
            c.rollback();
            c.setAutoCommit(true);
        }
        assertEquals(0, count(), "rolled back with the caller");
        BeginResult.Started again = assertInstanceOf(BeginResult.Started.class, keys.begin("acct", "tx-rollback", FP));
        assertEquals(1, again.attempt());

        try (Connection c = db.dataSource().getConnection()) {
            c.setAutoCommit(false);
            BeginResult.Started s = assertInstanceOf(BeginResult.Started.class, keys.begin(c, "acct", "tx-commit", FP));
            assertTrue(keys.complete(c, s.token(), "kept".getBytes(StandardCharsets.UTF_8))
                    .finished());
            c.commit();
            c.setAutoCommit(true);
        }
        assertEquals(
                "kept",
                assertInstanceOf(BeginResult.Completed.class, keys.begin("acct", "tx-commit", FP))
                        .responseText());

        // a fail in a rolled-back transaction leaves the key in progress
        try (Connection c = db.dataSource().getConnection()) {
            c.setAutoCommit(false);
            assertTrue(keys.fail(c, again.token()).finished());
            c.rollback();
            c.setAutoCommit(true);
        }
        assertEquals(new BeginResult.InProgress("acct", "tx-rollback"), keys.begin("acct", "tx-rollback", FP));
    }

    @Test
    void existingKeysLeaveTheCallersTransactionUsable() throws SQLException {
        BeginResult.Started done = assertInstanceOf(BeginResult.Started.class, keys.begin("acct", "done", FP));
        keys.complete(done.token(), "r".getBytes(StandardCharsets.UTF_8));
        keys.begin("acct", "busy", FP);
        try (Connection c = db.dataSource().getConnection()) {
            c.setAutoCommit(false);
            assertInstanceOf(BeginResult.Completed.class, keys.begin(c, "acct", "done", FP));
            assertInstanceOf(BeginResult.InProgress.class, keys.begin(c, "acct", "busy", FP));
            assertInstanceOf(BeginResult.Mismatch.class, keys.begin(c, "acct", "busy", "sha256:other"));
            // the transaction still works (on PostgreSQL a failed statement would have aborted it)
            BeginResult.Started s = assertInstanceOf(BeginResult.Started.class, keys.begin(c, "acct", "after", FP));
            assertTrue(keys.complete(c, s.token(), "ok".getBytes(StandardCharsets.UTF_8))
                    .finished());
            c.commit();
            c.setAutoCommit(true);
        }
        assertEquals(
                "ok",
                assertInstanceOf(BeginResult.Completed.class, keys.begin("acct", "after", FP))
                        .responseText());
    }

    @Test
    void deleteExpiredRemovesOnlyKeysPastRetentionInBatches() throws SQLException {
        int n = 1201; // more than two batches of 500
        try (Connection c = db.dataSource().getConnection()) {
            c.setAutoCommit(false);
            for (int i = 0; i < n; i++) {
                BeginResult.Started s =
                        assertInstanceOf(BeginResult.Started.class, keys.begin(c, "acct", "old-" + i, FP));
                assertTrue(keys.complete(c, s.token(), new byte[] {(byte) i}).finished());
            }
            c.commit();
            c.setAutoCommit(true);
        }
        keys.begin("acct", "running", FP); // in progress with a live 5-minute lease
        assertEquals(0, keys.deleteExpired(), "nothing is older than the default retention of 24 hours");
        assertEquals(n + 1, count());

        IdempotencyKeys sweeper = baton.idempotencyKeys(
                table,
                IdempotencyKeys.Options.defaults().lease(Duration.ofSeconds(1)).retention(Duration.ofMillis(1001)));
        long deleted = 0;
        long deadline = System.nanoTime() + WAIT.toNanos();
        while (deleted < n && System.nanoTime() < deadline) {
            long batch = sweeper.deleteExpired();
            deleted += batch;
            if (batch == 0) {
                pause();
            }
        }
        assertEquals(n, deleted, "every completed key past retention");
        assertEquals(1, count(), "the key whose lease is live stays");
        assertInstanceOf(BeginResult.InProgress.class, keys.begin("acct", "running", FP));
        assertInstanceOf(BeginResult.Started.class, keys.begin("acct", "old-0", FP), "a deleted key is new again");
    }

    @Test
    void badInputIsRefusedBeforeAnySql() {
        List<String> bad = List.of(
                "",
                " ",
                "   ",
                "\t",
                " key",
                "key ",
                "key\n",
                "ke\u0000y",
                "k\u0007",
                "\uD800",
                "x\uDC00y",
                "k\u00A0",
                "x".repeat(256));
        for (String b : bad) {
            String shown = Arrays.toString(b.getBytes(StandardCharsets.UTF_16BE));
            assertThrows(IllegalKeyException.class, () -> keys.begin(b, "key", FP), shown);
            assertThrows(IllegalKeyException.class, () -> keys.begin("acct", b, FP), shown);
            assertThrows(IllegalKeyException.class, () -> keys.begin("acct", "key", b), shown);
            assertThrows(
                    IllegalKeyException.class,
                    () -> keys.complete(new IdempotencyToken("acct", b, 1L), new byte[0]),
                    shown);
            assertThrows(IllegalKeyException.class, () -> keys.fail(new IdempotencyToken(b, "key", 1L)), shown);
        }
        IllegalKeyException e = assertThrows(IllegalKeyException.class, () -> keys.begin("acct", "key ", FP));
        assertEquals("idempotency key", e.argument());
        assertTrue(e.getMessage().contains("whitespace"), e.getMessage());

        assertThrows(NullPointerException.class, () -> keys.begin(null, "key", FP));
        assertThrows(NullPointerException.class, () -> keys.begin("acct", null, FP));
        assertThrows(NullPointerException.class, () -> keys.begin("acct", "key", null));
        assertThrows(NullPointerException.class, () -> keys.begin((Connection) null, "acct", "key", FP));
        assertThrows(NullPointerException.class, () -> keys.complete(null, new byte[0]));
        assertThrows(NullPointerException.class, () -> keys.fail(null));
        assertEquals(0, count(), "nothing written");

        IdempotencyKeys shortKeys = baton.idempotencyKeys(
                table, IdempotencyKeys.Options.defaults().maxKeyLength(36).maxResponseBytes(1024));
        assertInstanceOf(BeginResult.Started.class, shortKeys.begin("acct", "k".repeat(36), FP));
        assertThrows(IllegalKeyException.class, () -> shortKeys.begin("acct", "k".repeat(37), FP));
        BeginResult.Started s =
                assertInstanceOf(BeginResult.Started.class, shortKeys.begin("acct", "big-response", FP));
        PayloadTooLargeException tooLarge =
                assertThrows(PayloadTooLargeException.class, () -> shortKeys.complete(s.token(), new byte[1025]));
        assertEquals(1025, tooLarge.size());
        assertEquals(1024, tooLarge.limit());
        assertThrows(NullPointerException.class, () -> shortKeys.complete(s.token(), null));
        assertEquals(new BeginResult.InProgress("acct", "big-response"), shortKeys.begin("acct", "big-response", FP));
        assertTrue(shortKeys.complete(s.token(), new byte[1024]).finished());
        assertEquals(
                1024,
                assertInstanceOf(BeginResult.Completed.class, shortKeys.begin("acct", "big-response", FP))
                        .response()
                        .length);
        assertEquals(2, count());
    }

    @Test
    void optionsAreValidated() {
        IdempotencyKeys.Options d = IdempotencyKeys.Options.defaults();
        assertEquals(Duration.ofMinutes(5), d.lease());
        assertEquals(Duration.ofHours(24), d.retention());
        assertEquals(255, d.maxKeyLength());
        assertEquals(256 * 1024, d.maxResponseBytes());
        assertThrows(ConfigurationException.class, () -> d.lease(Duration.ZERO));
        assertThrows(ConfigurationException.class, () -> d.lease(Duration.ofMillis(-1)));
        assertThrows(ConfigurationException.class, () -> d.lease(Duration.ofNanos(999_999)));
        // A 1 ms lease let two requests both do the work; leases start at 1 s, as claim leases
        assertThrows(ConfigurationException.class, () -> d.lease(Duration.ofMillis(1)));
        assertThrows(ConfigurationException.class, () -> d.lease(Duration.ofMillis(999)));
        assertEquals(Duration.ofSeconds(1), d.lease(Duration.ofSeconds(1)).lease());
        assertThrows(ConfigurationException.class, () -> d.lease(Duration.ofHours(25)));
        assertThrows(ConfigurationException.class, () -> d.lease(Duration.ofSeconds(Long.MAX_VALUE)));
        assertThrows(ConfigurationException.class, () -> d.retention(Duration.ofMinutes(5)), "not above the lease");
        assertThrows(ConfigurationException.class, () -> d.retention(Duration.ofDays(3651)));
        assertThrows(ConfigurationException.class, () -> d.maxKeyLength(0));
        assertThrows(ConfigurationException.class, () -> d.maxKeyLength(256));
        assertThrows(ConfigurationException.class, () -> d.maxResponseBytes(0));
        assertThrows(ConfigurationException.class, () -> d.maxResponseBytes(16 * 1024 * 1024));
        assertThrows(NullPointerException.class, () -> d.lease(null));
        assertThrows(NullPointerException.class, () -> baton.idempotencyKeys(table, null));
    }

    @Test
    void mysqlWithoutStrictModeIsRefusedAtStartUp() throws SQLException {
        if (!kind.truncatesWithoutStrictMode()) {
            // only MySQL and MariaDB truncate silently; elsewhere the storage check finds nothing to refuse
            assertEquals(List.of(), baton.dialect().diagnostics().storageProblems(db.dataSource(), 16 * 1024 * 1024));
            return;
        }
        Baton lax = Baton.builder(new SessionDataSource(db, "SET SESSION sql_mode = 'NO_ENGINE_SUBSTITUTION'"))
                .build();
        ConfigurationException e = assertThrows(ConfigurationException.class, () -> lax.idempotencyKeys(table));
        assertTrue(e.getMessage().contains("STRICT_TRANS_TABLES"), e.getMessage());
        Baton strictAll = Baton.builder(new SessionDataSource(db, "SET SESSION sql_mode = 'STRICT_ALL_TABLES'"))
                .build();
        strictAll.idempotencyKeys(table);

        long packet;
        try (Connection c = db.connect();
                Statement st = c.createStatement();
                ResultSet rs = st.executeQuery("SELECT @@max_allowed_packet")) {
            rs.next();
            packet = rs.getLong(1);
        }
        int largest = IdempotencyKeys.Options.MAX_RESPONSE_BYTES;
        IdempotencyKeys.Options big = IdempotencyKeys.Options.defaults().maxResponseBytes(largest);
        if (packet < 2L * largest + 64 * 1024) {
            ConfigurationException p =
                    assertThrows(ConfigurationException.class, () -> baton.idempotencyKeys(table, big));
            assertTrue(p.getMessage().contains("max_allowed_packet"), p.getMessage());
        } else {
            baton.idempotencyKeys(table, big);
        }
    }

    // ---------------------------------------------------------------------------------------------------------

    private BeginResult.Started awaitStarted(IdempotencyKeys k, String scope, String key) {
        long deadline = System.nanoTime() + WAIT.toNanos(); // a test timeout only; leases are the database's
        while (true) {
            BeginResult r = k.begin(scope, key, FP);
            if (r instanceof BeginResult.Started s) {
                return s;
            }
            assertInstanceOf(BeginResult.InProgress.class, r);
            assertTrue(System.nanoTime() < deadline, "the lease did not expire within " + WAIT);
            pause();
        }
    }

    /** Waits until the database says the key's lease has expired. */
    private void awaitLeaseExpiry(String scope, String key) throws SQLException {
        long deadline = System.nanoTime() + WAIT.toNanos();
        String sql = "SELECT CASE WHEN locked_until < " + kind.now() + " THEN 1 ELSE 0 END FROM " + table
                + " WHERE scope = ? AND idempotency_key = ?";
        try (Connection c = db.connect();
                PreparedStatement ps = c.prepareStatement(sql)) {
            ps.setString(1, scope);
            ps.setString(2, key);
            while (true) {
                try (ResultSet rs = ps.executeQuery()) {
                    assertTrue(rs.next());
                    if (rs.getInt(1) == 1) {
                        return;
                    }
                }
                assertTrue(System.nanoTime() < deadline, "the lease did not expire within " + WAIT);
                pause();
            }
        }
    }

    private static void pause() {
        try {
            TimeUnit.MILLISECONDS.sleep(5);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }

    /** Every column of one stored key, as text, to prove that nothing changed. */
    private String row(String scope, String key) throws SQLException {
        try (Connection c = db.connect();
                PreparedStatement ps = c.prepareStatement(
                        "SELECT fingerprint, state, token, attempts, locked_until, response, created_at, updated_at FROM "
                                + table + " WHERE scope = ? AND idempotency_key = ?")) {
            ps.setString(1, scope);
            ps.setString(2, key);
            try (ResultSet rs = ps.executeQuery()) {
                assertTrue(rs.next(), "key " + key + " exists");
                return rs.getString(1) + "|" + rs.getString(2) + "|" + rs.getLong(3) + "|" + rs.getInt(4) + "|"
                        + rs.getTimestamp(5) + "|" + Arrays.toString(rs.getBytes(6)) + "|" + rs.getTimestamp(7) + "|"
                        + rs.getTimestamp(8);
            }
        }
    }

    private int count() {
        try (Connection c = db.connect();
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT COUNT(*) FROM " + table)) {
            rs.next();
            return rs.getInt(1);
        } catch (SQLException e) {
            throw new AssertionError(e);
        }
    }

    private boolean table(String name) {
        try (Connection c = db.connect();
                Statement s = c.createStatement()) {
            s.executeQuery("SELECT COUNT(*) FROM " + name).close();
            return true;
        } catch (SQLException e) {
            return false;
        }
    }

    /** New connections (outside any pool) that run one statement first, e.g. to change the session's sql_mode. */
    /** Connections with one session statement run first (e.g. a lax sql_mode). */
    static final class SessionDataSource implements dev.baton.testservers.ConnectionSource {
        private final TestDatabase db;
        private final String sql;

        SessionDataSource(TestDatabase db, String sql) {
            this.db = db;
            this.sql = sql;
        }

        @Override
        public Connection getConnection() throws SQLException {
            Connection c = db.connect();
            try (Statement s = c.createStatement()) {
                s.execute(sql);
            } catch (SQLException e) {
                c.close();
                throw e;
            }
            return c;
        }
    }
}
