package dev.baton.testkit.compat;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.baton.Baton;
import dev.baton.ClaimQueue;
import dev.baton.ClaimQueueBuilder;
import dev.baton.ClaimedRow;
import dev.baton.GroupWeights;
import dev.baton.SchemaMismatchException;
import dev.baton.spi.Dialect;
import dev.baton.spi.ExclusiveLock;
import dev.baton.spi.SqlVocabulary;
import dev.baton.testkit.DatabaseSuite;
import dev.baton.testservers.TestDatabase;
import dev.baton.testservers.TestDatabases;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.UnaryOperator;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;

/**
 * Claims that shape what they take: a per-key limit held across concurrent claimers,
 * round-robin across groups, and priorities served by an index {@code verify()} checks. Each concurrent test fails
 * without its option (the plain claim takes the oldest rows whatever their key, group or priority); the per-key limit
 * is also run without its lock, to show that the interleaving it prevents happens.
 */
public abstract class AbstractClaimShapeCompatibilityTest extends DatabaseSuite {
    private static final Duration LEASE = Duration.ofSeconds(60);

    private TestDatabase db;
    private Baton baton;
    private String table;

    @Override
    protected void setUp() {
        db = database();
        baton = Baton.using(db.dataSource());
    }

    @BeforeEach
    void freshTable(TestInfo test) {
        // the group-weight tests have their own prefix (gw_), so that a run of them alone is told apart
        boolean weights = test.getTestMethod()
                .map(m -> m.getName().startsWith("weighted"))
                .orElse(false);
        table = TestDatabases.uniqueName(weights ? "gw" : "shape");
        String ts = db.kind().timestampType();
        db.execute("CREATE TABLE " + table + " (id BIGINT NOT NULL PRIMARY KEY, sync_status INT NOT NULL,"
                + " acct VARCHAR(20) NULL, tenant VARCHAR(20) NULL, prio INT NOT NULL, lease_until " + ts + ","
                + " claim_token BIGINT NULL, attempts INT DEFAULT 0 NOT NULL, next_attempt_at " + ts + ","
                + " last_error VARCHAR(1000) NULL)");
        db.execute("CREATE INDEX ix_" + table + "_claim ON " + table + " (sync_status, id)");
    }

    @AfterEach
    void dropTable() {
        db.dropTableIfExists(table);
    }

    /** Inserts a row, due at once or {@code dueInMillis} from the database's now. */
    private void insert(long id, String acct, String tenant, int prio, long dueInMillis) {
        SqlVocabulary sql = baton.dialect().sql();
        String due = dueInMillis == 0 ? "NULL" : sql.plusMillis(sql.currentTimestamp(), dueInMillis);
        try (Connection c = db.connect();
                PreparedStatement ps = c.prepareStatement("INSERT INTO " + table
                        + " (id, sync_status, acct, tenant, prio, attempts, next_attempt_at) VALUES (?, 0, ?, ?, ?, 0, "
                        + due + ")")) {
            ps.setLong(1, id);
            ps.setString(2, acct);
            ps.setString(3, tenant);
            ps.setInt(4, prio);
            ps.executeUpdate();
        } catch (SQLException e) {
            throw new AssertionError(e);
        }
    }

    /** Inserts due rows {id, acct, tenant, prio} in one batch on one connection. */
    private void insertAll(List<Object[]> rows) {
        try (Connection c = db.connect();
                PreparedStatement ps = c.prepareStatement("INSERT INTO " + table
                        + " (id, sync_status, acct, tenant, prio, attempts) VALUES (?, 0, ?, ?, ?, 0)")) {
            for (Object[] r : rows) {
                ps.setLong(1, (Long) r[0]);
                ps.setString(2, (String) r[1]);
                ps.setString(3, (String) r[2]);
                ps.setInt(4, (Integer) r[3]);
                ps.addBatch();
            }
            ps.executeBatch();
        } catch (SQLException e) {
            throw new AssertionError(e);
        }
    }

    private ClaimQueueBuilder<Sync> queue(Baton on, String name) {
        return on.<Sync>queue(name + "-" + table)
                .table(table)
                .claim("sync_status", Sync.MACHINE, Sync.PENDING, Sync.PROCESSING)
                .deadState(Sync.FAILED)
                .lease(LEASE)
                .select("acct", "tenant", "prio");
    }

    private int processingOf(String acct) {
        try (Connection c = db.connect();
                PreparedStatement ps =
                        c.prepareStatement("SELECT COUNT(*) FROM " + table + " WHERE sync_status = 1 AND acct = ?")) {
            ps.setString(1, acct);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getInt(1);
            }
        } catch (SQLException e) {
            throw new AssertionError(e);
        }
    }

    // ---- 1. per-key limit

    /**
     * Six claimers take batches of three from three keys of 14 rows (and rows without a key), holding each batch a few
     * milliseconds: no key ever has more than two rows held, every row is handled once, and a key does reach two.
     */
    @Test
    void aKeyNeverHasMoreThanItsLimitHeldUnderConcurrentClaimers() throws Exception {
        int rows = 48;
        List<Object[]> all = new ArrayList<>();
        for (long i = 1; i <= rows; i++) {
            all.add(new Object[] {i, i % 8 == 0 ? null : "k" + (i % 3), "t", 0});
        }
        insertAll(all);
        ClaimQueue<Sync> q = queue(baton, "limit").concurrencyPerKey("acct", 2).build();
        Map<String, AtomicInteger> held = new ConcurrentHashMap<>();
        AtomicInteger most = new AtomicInteger();
        Set<Object> seen = ConcurrentHashMap.newKeySet();
        AtomicInteger duplicates = new AtomicInteger();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        concurrently(6, () -> {
            while (seen.size() < rows && System.nanoTime() < deadline) {
                List<ClaimedRow<Sync>> batch = q.claim(3);
                for (ClaimedRow<Sync> r : batch) {
                    if (!seen.add(r.id())) {
                        duplicates.incrementAndGet();
                    }
                    Object k = r.get("acct");
                    if (k != null) {
                        int now = held.computeIfAbsent(k.toString(), x -> new AtomicInteger())
                                .incrementAndGet();
                        most.accumulateAndGet(now, Math::max);
                    }
                }
                Thread.sleep(batch.isEmpty() ? 1 : 4);
                for (ClaimedRow<Sync> r : batch) {
                    Object k = r.get("acct");
                    if (k != null) {
                        held.get(k.toString()).decrementAndGet(); // before the completion commits
                    }
                    q.complete(r, Sync.COMPLETED);
                }
            }
        });
        assertEquals(0, duplicates.get(), "no row claimed twice");
        assertEquals(rows, seen.size(), "every row handled");
        assertEquals(2, most.get(), "a key reached its limit of 2 and never passed it");
    }

    /**
     * The interleaving the lock prevents, made certain: claimer A takes the only due row of key k and is slow to
     * commit; meanwhile an older row of k becomes due (a retry's backoff ends, or a host puts it back). With the lock, B waits for A's commit and then sees k full;
     * without it (the same claim, lock replaced by {@code SELECT 1}), B sees k empty and takes the older row, and k has
     * two rows held under a limit of 1.
     */
    @Test
    void theLockMakesALateClaimerSeeTheSlowClaimersCommit() throws Exception {
        assertEquals(1, limitRace(true), "with the lock: one row of k held");
    }

    /** {@link #theLockMakesALateClaimerSeeTheSlowClaimersCommit()} without the lock: the test can fail. */
    @Test
    void withoutTheLockTheSameInterleavingExceedsTheLimit() throws Exception {
        assertEquals(2, limitRace(false), "without the lock: both rows of k held");
    }

    /** Runs the race of {@link #theLockMakesALateClaimerSeeTheSlowClaimersCommit()}; answers k's held rows. */
    private int limitRace(boolean locked) throws Exception {
        insert(1, "k", "t", 0, 3_600_000); // older, due in an hour: A cannot take it
        insert(2, "k", "t", 0, 0);
        CountDownLatch committing = new CountDownLatch(1);
        Baton slow = Baton.builder(commitsLate(db.dataSource(), 2_000, committing))
                .dialect(locked ? baton.dialect() : withoutClaimLock(baton.dialect()))
                .build();
        Baton fast = locked
                ? baton
                : Baton.builder(db.dataSource())
                        .dialect(withoutClaimLock(baton.dialect()))
                        .build();
        ClaimQueue<Sync> a = queue(slow, "race").concurrencyPerKey("acct", 1).build();
        ClaimQueue<Sync> b = queue(fast, "race").concurrencyPerKey("acct", 1).build();
        ExecutorService pool = Executors.newSingleThreadExecutor();
        try {
            Future<List<ClaimedRow<Sync>>> first = pool.submit(() -> a.claim(10));
            assertTrue(committing.await(30, TimeUnit.SECONDS), "A's claim reached its commit");
            // A has claimed row 2 and not committed; now the older row of k becomes due
            db.execute("UPDATE " + table + " SET next_attempt_at = NULL WHERE id = 1");
            List<ClaimedRow<Sync>> second = b.claim(10);
            List<ClaimedRow<Sync>> firstRows = first.get(30, TimeUnit.SECONDS);
            assertEquals(List.of(2L), ids(firstRows), "A took the only row due when it claimed");
            assertEquals(locked ? List.of() : List.of(1L), ids(second), "B's claim");
            return processingOf("k");
        } finally {
            pool.shutdownNow();
        }
    }

    // ---- 2. fairness across groups

    /**
     * One tenant holds 300 rows, older than those of five tenants with three each. One claim of 12 takes two rows of
     * each of the six tenants; four concurrent claimers then serve the small tenants' last rows before the big tenant's
     * 40th row (today's claim serves all 300 first).
     */
    @Test
    void aSmallTenantIsServedWhileABigOneHasABacklog() throws Exception {
        long id = 1;
        List<Object[]> all = new ArrayList<>();
        for (int i = 0; i < 300; i++) {
            all.add(new Object[] {id++, null, "big", 0});
        }
        for (int round = 0; round < 3; round++) {
            for (int s = 0; s < 5; s++) {
                all.add(new Object[] {id++, null, "small" + s, 0});
            }
        }
        insertAll(all);
        ClaimQueue<Sync> q = queue(baton, "fair").fairAcross("tenant").build();
        Map<String, Integer> perTenant = new HashMap<>();
        List<ClaimedRow<Sync>> one = q.claim(12);
        for (ClaimedRow<Sync> r : one) {
            perTenant.merge((String) r.get("tenant"), 1, Integer::sum);
        }
        assertEquals(
                Map.of("big", 2, "small0", 2, "small1", 2, "small2", 2, "small3", 2, "small4", 2),
                perTenant,
                "one claim: round-robin across the six tenants");
        for (ClaimedRow<Sync> r : one) {
            q.complete(r, Sync.COMPLETED);
        }
        List<String> order = Collections.synchronizedList(new ArrayList<>());
        AtomicInteger smallLeft = new AtomicInteger(5);
        concurrently(4, () -> {
            for (int n = 0; n < 50 && smallLeft.get() > 0; n++) {
                for (ClaimedRow<Sync> r : q.claim(4)) {
                    String tenant = (String) r.get("tenant");
                    order.add(tenant);
                    if (!tenant.equals("big")) {
                        smallLeft.decrementAndGet();
                    }
                    q.complete(r, Sync.COMPLETED);
                }
            }
        });
        assertEquals(0, smallLeft.get(), "every small tenant's row was claimed");
        int lastSmall = 0;
        int bigBefore = 0;
        List<String> snapshot = new ArrayList<>(order);
        for (int i = 0; i < snapshot.size(); i++) {
            if (!snapshot.get(i).equals("big")) {
                lastSmall = i;
            }
        }
        for (int i = 0; i < lastSmall; i++) {
            if (snapshot.get(i).equals("big")) {
                bigBefore++;
            }
        }
        assertTrue(bigBefore < 40, "big-tenant rows claimed before the small tenants' last: " + bigBefore);
    }

    /**
     * Tenants of 40, 7, 3 and 1 rows and 5 rows without a tenant (a group of their own), ids shuffled among them: each
     * of four claims (20, 20, 7, then what is left) takes exactly the rows a round-robin over the remaining rows gives
     * (place within the group, then id), so a claim that leaves out a group or gives one more than its turn fails. The
     * claim reads group by group through the index {@code suggestedIndex()} gives, which {@code verify()} accepts on
     * the empty and on the loaded table.
     */
    @Test
    void eachClaimTakesEveryGroupsTurnAndNoMore() {
        ClaimQueue<Sync> q = queue(baton, "rr").fairAcross("tenant").build();
        String suggested = q.suggestedIndex();
        assertTrue(suggested.contains("tenant"), suggested);
        db.execute(suggested);
        q.verify(); // empty
        List<String> groups = new ArrayList<>();
        for (Object[] g : new Object[][] {{"big", 40}, {"seven", 7}, {"three", 3}, {"one", 1}, {null, 5}}) {
            for (int i = 0; i < (Integer) g[1]; i++) {
                groups.add((String) g[0]);
            }
        }
        Collections.shuffle(groups, new java.util.Random(21));
        Map<Long, String> remaining = new java.util.TreeMap<>();
        List<Object[]> rows = new ArrayList<>();
        for (int i = 0; i < groups.size(); i++) {
            long id = i + 1;
            rows.add(new Object[] {id, null, groups.get(i), 0});
            remaining.put(id, groups.get(i) == null ? "(null)" : groups.get(i));
        }
        insertAll(rows);
        db.execute(db.kind().analyzeSql(table));
        q.verify(); // loaded
        for (int n : new int[] {20, 20, 7, 20}) {
            Map<String, Integer> place = new HashMap<>();
            List<long[]> ranked = new ArrayList<>(); // {place within the group, id}, ids ascending
            for (Map.Entry<Long, String> r : remaining.entrySet()) {
                ranked.add(new long[] {place.merge(r.getValue(), 1, Integer::sum), r.getKey()});
            }
            ranked.sort((x, y) -> x[0] != y[0] ? Long.compare(x[0], y[0]) : Long.compare(x[1], y[1]));
            Set<Long> expected = new TreeSet<>();
            for (int i = 0; i < Math.min(n, ranked.size()); i++) {
                expected.add(ranked.get(i)[1]);
            }
            List<ClaimedRow<Sync>> claimed = q.claim(n);
            assertEquals(expected, new TreeSet<>(ids(claimed)), "a claim of " + n + " over " + remaining);
            for (ClaimedRow<Sync> r : claimed) {
                q.complete(r, Sync.COMPLETED);
                remaining.remove(r.longId());
            }
        }
        assertTrue(remaining.isEmpty(), "left: " + remaining);
    }

    /**
     * Weights per group: gold (weight 3) and three other tenants of 100 rows each, ids shuffled among them. Every claim
     * of 12 takes 6 rows of gold and 2 of each other tenant (without the weights it would take 3 of each), and exactly
     * the rows a weighted round-robin gives (turn = place within the group divided by its weight, rounded up; then id).
     * The claim reads group by group through the index {@code suggestedIndex()} gives.
     */
    @Test
    void weightedGroupTakesItsWeightPerTurn() {
        ClaimQueue<Sync> q = queue(baton, "gw")
                .fairAcross("tenant", GroupWeights.of(Map.of("gold", 3)))
                .build();
        db.execute(q.suggestedIndex());
        List<String> groups = new ArrayList<>();
        for (String tenant : List.of("gold", "b", "c", "d")) {
            groups.addAll(Collections.nCopies(100, tenant));
        }
        Collections.shuffle(groups, new java.util.Random(22));
        Map<Long, String> remaining = new java.util.TreeMap<>();
        List<Object[]> rows = new ArrayList<>();
        for (int i = 0; i < groups.size(); i++) {
            rows.add(new Object[] {i + 1L, null, groups.get(i), 0});
            remaining.put(i + 1L, groups.get(i));
        }
        insertAll(rows);
        db.execute(db.kind().analyzeSql(table));
        q.verify();
        Map<String, Integer> weights = Map.of("gold", 3);
        for (int claim = 0; claim < 5; claim++) {
            Set<Long> expected = weightedTurns(remaining, weights, 12);
            List<ClaimedRow<Sync>> claimed = q.claim(12);
            Map<String, Integer> shares = new HashMap<>();
            for (ClaimedRow<Sync> r : claimed) {
                shares.merge((String) r.get("tenant"), 1, Integer::sum);
            }
            assertEquals(Map.of("gold", 6, "b", 2, "c", 2, "d", 2), shares, "claim " + (claim + 1));
            assertEquals(expected, new TreeSet<>(ids(claimed)), "claim " + (claim + 1) + " over " + remaining);
            for (ClaimedRow<Sync> r : claimed) {
                q.complete(r, Sync.COMPLETED);
                remaining.remove(r.longId());
            }
        }
    }

    /**
     * A weighted group with fewer rows than its weight takes what it has and no one else's turn: gold (weight 5) has 2
     * rows, silver (weight 2) 9, three tenants 30, 7 and 1, and 6 rows have no tenant (weight 1); each claim (10, 10, 4,
     * 25, then the rest) takes exactly the weighted round-robin's rows. Run as the bounded read (fairAcross alone), as
     * the ranking of every eligible row (with a priority, all rows of one), with a per-key limit, and with per-key order
     * (no row has a key).
     */
    @Test
    void weightedGroupWithFewRowsTakesNoOneElsesTurn() {
        Map<String, Integer> weights = Map.of("gold", 5, "silver", 2);
        List<UnaryOperator<ClaimQueueBuilder<Sync>>> forms = List.of(
                b -> b, b -> b.priority("prio"), b -> b.concurrencyPerKey("acct", 1000), b -> b.orderedPerKey("acct"));
        for (int form = 0; form < forms.size(); form++) {
            ClaimQueue<Sync> q = forms.get(form)
                    .apply(queue(baton, "gw" + form).fairAcross("tenant", GroupWeights.of(weights)))
                    .build();
            List<String> groups = new ArrayList<>();
            for (Object[] g :
                    new Object[][] {{"gold", 2}, {"silver", 9}, {"big", 30}, {"seven", 7}, {"one", 1}, {null, 6}}) {
                groups.addAll(Collections.nCopies((Integer) g[1], (String) g[0]));
            }
            Collections.shuffle(groups, new java.util.Random(23 + form));
            Map<Long, String> remaining = new java.util.TreeMap<>();
            List<Object[]> rows = new ArrayList<>();
            for (int i = 0; i < groups.size(); i++) {
                long id = 1000L * form + i + 1;
                rows.add(new Object[] {id, null, groups.get(i), 0});
                remaining.put(id, groups.get(i) == null ? "(null)" : groups.get(i));
            }
            insertAll(rows);
            for (int n : new int[] {10, 10, 4, 25, 20}) {
                Set<Long> expected = weightedTurns(remaining, weights, n);
                List<ClaimedRow<Sync>> claimed = q.claim(n);
                assertEquals(
                        expected,
                        new TreeSet<>(ids(claimed)),
                        "form " + form + ", a claim of " + n + " over " + remaining);
                for (ClaimedRow<Sync> r : claimed) {
                    q.complete(r, Sync.COMPLETED);
                    remaining.remove(r.longId());
                }
            }
            assertTrue(remaining.isEmpty(), "form " + form + " left: " + remaining);
        }
    }

    /**
     * The first {@code n} of {@code remaining} (id to group, ids ascending) by turn, then id: a row's turn is its place
     * within its group divided by the group's weight (1 if it has none), rounded up.
     */
    private static Set<Long> weightedTurns(Map<Long, String> remaining, Map<String, Integer> weights, int n) {
        Map<String, Integer> place = new HashMap<>();
        List<long[]> ranked = new ArrayList<>(); // {turn, id}
        for (Map.Entry<Long, String> r : remaining.entrySet()) {
            int p = place.merge(r.getValue(), 1, Integer::sum);
            int w = weights.getOrDefault(r.getValue(), 1);
            ranked.add(new long[] {(p + w - 1) / w, r.getKey()});
        }
        ranked.sort((x, y) -> x[0] != y[0] ? Long.compare(x[0], y[0]) : Long.compare(x[1], y[1]));
        Set<Long> expected = new TreeSet<>();
        for (int i = 0; i < Math.min(n, ranked.size()); i++) {
            expected.add(ranked.get(i)[1]);
        }
        return expected;
    }

    // ---- 3. priorities

    /**
     * 60 rows of priorities 0..4 (not in id order): one claim returns the highest priorities first, in id order within
     * one; four concurrent claims of five take only rows of the top 20 by (priority, id).
     */
    @Test
    void higherPrioritiesAreClaimedFirstAlsoByConcurrentClaimers() throws Exception {
        List<long[]> all = new ArrayList<>();
        List<Object[]> rows = new ArrayList<>();
        for (long i = 1; i <= 60; i++) {
            int prio = (int) ((i * 7) % 5);
            rows.add(new Object[] {i, null, "t", prio});
            all.add(new long[] {prio, i});
        }
        insertAll(rows);
        all.sort((x, y) -> x[0] != y[0] ? Long.compare(y[0], x[0]) : Long.compare(x[1], y[1]));
        ClaimQueue<Sync> q = queue(baton, "prio").priority("prio").build();
        // without it MariaDB and MySQL sort the candidates, locking every one, and concurrent claims find nothing
        db.execute(q.suggestedIndex());
        List<ClaimedRow<Sync>> first = q.claim(5);
        List<Long> expected = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            expected.add(all.get(i)[1]);
        }
        assertEquals(expected, ids(first), "priority 4 first, in id order");
        for (ClaimedRow<Sync> r : first) {
            q.complete(r, Sync.COMPLETED);
        }
        Set<Long> top = new TreeSet<>();
        for (int i = 5; i < 25; i++) {
            top.add(all.get(i)[1]);
        }
        Set<Long> claimed = ConcurrentHashMap.newKeySet();
        concurrently(4, () -> {
            for (ClaimedRow<Sync> r : q.claim(5)) {
                claimed.add(r.longId());
            }
        });
        assertTrue(top.containsAll(claimed), "claimed " + new TreeSet<>(claimed) + ", top 20 " + top);
        assertTrue(claimed.size() >= 15, "the claims took rows: " + claimed.size());
    }

    /** Verify() refuses a priority queue whose index does not lead with the priority, and accepts its suggested one. */
    @Test
    void verifyChecksThePriorityIndexAndSuggestsIt() {
        List<Object[]> rows = new ArrayList<>();
        for (long i = 1; i <= 60; i++) {
            rows.add(new Object[] {i, null, "t", (int) (i % 5)});
        }
        insertAll(rows);
        ClaimQueue<Sync> q = queue(baton, "prio").priority("prio").build();
        String suggested = q.suggestedIndex();
        assertTrue(suggested.contains("prio") && suggested.contains("DESC"), suggested);
        if (db.kind().plannerChecksClaimIndex()) {
            SchemaMismatchException refused = assertThrows(SchemaMismatchException.class, q::verify);
            assertTrue(refused.getMessage().contains(suggested), refused.getMessage());
        }
        db.execute(suggested);
        db.execute(db.kind().analyzeSql(table));
        q.verify();
    }

    /**
     * A NULL sorts first in PostgreSQL's {@code DESC} and last in MySQL's, so "higher first" holds only for a NOT NULL
     * priority column: the table the queue hands out has one, and verify() refuses a nullable one with the statements
     * that fix it (NULLs set to 0, then NOT NULL).
     */
    @Test
    void thePriorityColumnIsNotNullInTheHandedOutTableAndVerifyRefusesANullableOne() throws SQLException {
        String own = TestDatabases.uniqueName("sw_prio");
        try {
            ClaimQueue<Sync> handedOut = baton.<Sync>queue("prio-" + own)
                    .table(own)
                    .claim("sync_status", Sync.MACHINE, Sync.PENDING, Sync.PROCESSING)
                    .deadState(Sync.FAILED)
                    .lease(LEASE)
                    .priority("prio")
                    .build();
            db.execute(handedOut.createTableSql().toArray(new String[0]));
            handedOut.verify();
            try (Connection c = db.connect();
                    java.sql.Statement s = c.createStatement()) {
                s.executeUpdate("INSERT INTO " + own + " (id, sync_status, prio) VALUES (1, 0, NULL)");
                throw new AssertionError(
                        "the table of createTableSql() took a NULL priority: " + handedOut.createTableSql());
            } catch (SQLException expected) {
                // refused: the column is NOT NULL
            }
        } finally {
            db.dropTableIfExists(own);
        }
        db.execute(
                switch (db.kind()) {
                    case POSTGRES -> "ALTER TABLE " + table + " ALTER COLUMN prio DROP NOT NULL";
                    case SQLSERVER -> "ALTER TABLE " + table + " ALTER COLUMN prio INT NULL";
                    case MARIADB, MYSQL -> "ALTER TABLE " + table + " MODIFY prio INT NULL";
                });
        List<Object[]> rows = new ArrayList<>();
        for (long i = 2; i <= 60; i++) {
            rows.add(new Object[] {i, null, "t", (int) (i % 5)});
        }
        insertAll(rows);
        db.execute("INSERT INTO " + table + " (id, sync_status, prio, attempts) VALUES (1, 0, NULL, 0)");
        ClaimQueue<Sync> q = queue(baton, "prio").priority("prio").build();
        db.execute(q.suggestedIndex());
        db.execute(db.kind().analyzeSql(table));
        SchemaMismatchException refused =
                assertThrows(SchemaMismatchException.class, q::verify, "verify() accepted a nullable priority column");
        assertTrue(
                refused.problems().stream().anyMatch(p -> p.contains("prio") && p.contains("NULL")),
                refused.getMessage());
        db.execute(refused.ddl().toArray(new String[0]));
        q.verify();
        List<ClaimedRow<Sync>> first = q.claim(1);
        assertEquals(1, first.size());
        assertEquals(4, ((Number) first.get(0).get("prio")).intValue(), "the highest priority first");
    }

    /** A piece of work for {@link #concurrently}. */
    @FunctionalInterface
    private interface Work {
        void run() throws Exception;
    }

    /** Runs {@code work} on {@code threads} threads released together; waits for all (60 s at most). */
    private static void concurrently(int threads, Work work) throws Exception {
        CountDownLatch start = new CountDownLatch(1);
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            List<Future<?>> done = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                done.add(pool.submit(() -> {
                    start.await();
                    work.run();
                    return null;
                }));
            }
            start.countDown();
            for (Future<?> f : done) {
                f.get(60, TimeUnit.SECONDS);
            }
        } finally {
            pool.shutdownNow();
        }
    }

    private static List<Long> ids(List<ClaimedRow<Sync>> rows) {
        List<Long> out = new ArrayList<>();
        for (ClaimedRow<Sync> r : rows) {
            out.add(r.longId());
        }
        return out;
    }

    /** The dialect with its claim lock replaced by {@code SELECT 1}: the claim as it would be without the lock. */
    static Dialect withoutClaimLock(Dialect delegate) {
        SqlVocabulary words = delegate.sql();
        SqlVocabulary noLock = (SqlVocabulary) Proxy.newProxyInstance(
                SqlVocabulary.class.getClassLoader(), new Class<?>[] {SqlVocabulary.class}, (proxy, method, args) -> {
                    return method.getName().startsWith("exclusiveLock")
                            ? new ExclusiveLock("SELECT 1", null)
                            : forward(words, method, args);
                });
        String name = delegate.name() + "-without-claim-lock";
        return (Dialect) Proxy.newProxyInstance(
                Dialect.class.getClassLoader(), new Class<?>[] {Dialect.class}, (proxy, method, args) -> {
                    switch (method.getName()) {
                        case "sql":
                            return noLock;
                        case "name", "toString":
                            return name;
                        case "supports":
                            return false; // never chosen by detection
                        default:
                            return forward(delegate, method, args);
                    }
                });
    }

    private static Object forward(Object target, java.lang.reflect.Method method, Object[] args) throws Throwable {
        try {
            return method.invoke(target, args);
        } catch (InvocationTargetException e) {
            throw e.getCause();
        }
    }

    /**
     * Connections that wait {@code millis} before each commit (an explicit one, or switching autocommit back on),
     * counting {@code committing} down as a commit starts to wait.
     */
    static DataSource commitsLate(DataSource delegate, long millis, CountDownLatch committing) {
        UnaryOperator<Connection> late = c -> (Connection) Proxy.newProxyInstance(
                Connection.class.getClassLoader(), new Class<?>[] {Connection.class}, (proxy, method, args) -> {
                    boolean commits = method.getName().equals("commit")
                            || method.getName().equals("setAutoCommit")
                                    && Boolean.TRUE.equals(args[0])
                                    && !c.getAutoCommit();
                    if (commits) {
                        committing.countDown();
                        Thread.sleep(millis);
                    }
                    return forward(c, method, args);
                });
        return (DataSource) Proxy.newProxyInstance(
                DataSource.class.getClassLoader(), new Class<?>[] {DataSource.class}, (proxy, method, args) -> {
                    Object result = forward(delegate, method, args);
                    return method.getName().equals("getConnection") ? late.apply((Connection) result) : result;
                });
    }
}
