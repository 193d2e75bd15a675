package dev.baton.testkit.compat;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.baton.Baton;
import dev.baton.BatonListener;
import dev.baton.BulkResult;
import dev.baton.Condition;
import dev.baton.IllegalTransitionException;
import dev.baton.InvalidIdentifierException;
import dev.baton.SchemaMismatchException;
import dev.baton.StateTable;
import dev.baton.TransitionResult;
import dev.baton.UnknownStateException;
import dev.baton.testkit.DatabaseSuite;
import dev.baton.testservers.DatabaseKind;
import dev.baton.testservers.TestDatabase;
import dev.baton.testservers.TestDatabases;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The behaviour of guarded transitions, defined once and run by every dialect module against real servers. A dialect runs it
 * as a nested class of its one parameterized test over its servers (see {@link dev.baton.testkit.DatabaseSuite}):
 *
 * <pre>
 * &#64;Nested class Transitions extends AbstractTransitionCompatibilityTest {}</pre>
 *
 * Each test class works in tables of its own (random suffix), so classes may run in parallel.
 */
public abstract class AbstractTransitionCompatibilityTest extends DatabaseSuite {
    /** Threads racing in the concurrency tests. */
    protected static final int RACERS = 50;

    private TestDatabase db;
    private DatabaseKind kind;
    private Baton baton;
    private String orders;
    private StateTable<Payment> payments;
    private final List<String> tables = new ArrayList<>();
    private final AtomicLong nextId = new AtomicLong(1);

    @Override
    protected void setUp() {
        db = database();
        kind = db.kind();
        orders = TestDatabases.uniqueName("orders");
        tables.add(orders);
        db.execute("CREATE TABLE " + orders + " (id BIGINT NOT NULL PRIMARY KEY, payment_status INT NOT NULL,"
                + " payment_transaction_id VARCHAR(64) NULL, note VARCHAR(100) NULL, paid_at "
                + kind.timestampType() + ", created_at " + kind.timestampType() + ", CONSTRAINT uq_" + orders
                + "_txn UNIQUE (payment_transaction_id))");
        baton = Baton.using(db.dataSource());
        payments = baton.table(orders).id("id").state("payment_status", Payment.MACHINE);
    }

    @Override
    protected void tearDown() {
        for (String t : tables) {
            db.dropTableIfExists(t);
        }
    }

    @BeforeEach
    void clean() {
        db.execute("DELETE FROM " + orders);
    }

    /** The Baton instance on the database under test. */
    protected Baton baton() {
        return baton;
    }

    private long newOrder(Payment state) {
        long id = nextId.getAndIncrement();
        db.execute("INSERT INTO " + orders + " (id, payment_status, created_at) VALUES (" + id + ", " + state.code()
                + ", " + kind.now() + ")");
        return id;
    }

    private Object column(long id, String column) {
        try (Connection c = db.connect();
                PreparedStatement ps = c.prepareStatement("SELECT " + column + " FROM " + orders + " WHERE id = ?")) {
            ps.setLong(1, id);
            try (ResultSet rs = ps.executeQuery()) {
                assertTrue(rs.next(), "row " + id + " exists");
                return rs.getObject(1);
            }
        } catch (SQLException e) {
            throw new AssertionError(e);
        }
    }

    private int status(long id) {
        return ((Number) column(id, "payment_status")).intValue();
    }

    @Test
    void appliesOnceAndReportsEveryOutcome() {
        long id = newOrder(Payment.PENDING);
        TransitionResult<Payment> first = payments.transition(id, Payment.PENDING, Payment.PAID)
                .set("payment_transaction_id", "tx-" + id)
                .setNow("paid_at")
                .apply();
        assertEquals(new TransitionResult.Applied<>(id, Payment.PAID), first);
        assertEquals(Payment.PAID.code(), status(id));
        assertEquals("tx-" + id, column(id, "payment_transaction_id"));
        assertNotNull(column(id, "paid_at"), "paid_at set by the database clock");

        TransitionResult<Payment> again = payments.transition(id, Payment.PENDING, Payment.PAID)
                .set("payment_transaction_id", "tx-" + id)
                .apply();
        assertEquals(new TransitionResult.AlreadyInTarget<>(id, Payment.PAID), again);

        TransitionResult<Payment> late =
                payments.transition(id, Payment.PENDING, Payment.FAILED).apply();
        assertEquals(new TransitionResult.Rejected<>(id, Payment.PAID, Payment.FAILED), late);
        assertEquals(Payment.PAID.code(), status(id), "a rejected transition writes nothing");

        assertEquals(
                new TransitionResult.NotFound<>(-42L),
                payments.transition(-42L, Payment.PENDING, Payment.PAID).apply());
        assertEquals(java.util.Optional.of(Payment.PAID), payments.currentState(id));
        assertEquals(java.util.Optional.empty(), payments.currentState(-42L));
    }

    @Test
    void setsATimestampColumnToNull() {
        long id = newOrder(Payment.PENDING);
        db.execute("UPDATE " + orders + " SET paid_at = " + kind.now() + " WHERE id = " + id);
        assertNotNull(column(id, "paid_at"));
        TransitionResult<Payment> cleared = payments.transition(id, Payment.PENDING, Payment.FAILED)
                .set("paid_at", null)
                .apply();
        assertEquals(new TransitionResult.Applied<>(id, Payment.FAILED), cleared);
        assertEquals(
                null, column(id, "paid_at"), "a null bound to a timestamp column (SQL Server: error 257 if typed)");
    }

    @Test
    void databaseClockStampsTheExtraColumn() throws SQLException {
        long id = newOrder(Payment.PENDING);
        payments.transition(id, Payment.PAID).setNow("paid_at").apply();
        String sql = "SELECT CASE WHEN paid_at <= " + kind.now() + " AND paid_at > " + kind.minutesAgo(1)
                + " THEN 1 ELSE 0 END FROM " + orders + " WHERE id = " + id;
        try (Connection c = db.connect();
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery(sql)) {
            assertTrue(rs.next());
            assertEquals(1, rs.getInt(1), "paid_at is within the last minute of database time");
        }
    }

    @Test
    void sameGatewayTransactionOnTwoOrdersIsAConflict() {
        long a = newOrder(Payment.PENDING);
        long b = newOrder(Payment.PENDING);
        assertTrue(payments.transition(a, Payment.PENDING, Payment.PAID)
                .set("payment_transaction_id", "shared-" + a)
                .apply()
                .applied());
        TransitionResult<Payment> second = payments.transition(b, Payment.PENDING, Payment.PAID)
                .set("payment_transaction_id", "shared-" + a)
                .apply();
        TransitionResult.Conflict<?> conflict = assertInstanceOf(TransitionResult.Conflict.class, second);
        assertEquals(b, conflict.id());
        assertNotNull(conflict.constraint(), "the database named the constraint");
        assertTrue(conflict.constraint().equalsIgnoreCase("uq_" + orders + "_txn"), conflict.constraint());
        assertEquals(Payment.PENDING.code(), status(b), "the conflicting transition wrote nothing");
    }

    @Test
    void callerTransactionIsJoinedAndSurvivesAConflict() throws SQLException {
        long a = newOrder(Payment.PENDING);
        long b = newOrder(Payment.PENDING);
        long c3 = newOrder(Payment.PENDING);
        try (Connection c = db.dataSource().getConnection()) {
            c.setAutoCommit(false);
            assertTrue(payments.transition(a, Payment.PAID)
                    .set("payment_transaction_id", "j-" + a)
                    .apply(c)
                    .applied());
            TransitionResult<Payment> conflict = payments.transition(b, Payment.PAID)
                    .set("payment_transaction_id", "j-" + a)
                    .apply(c);
            assertInstanceOf(TransitionResult.Conflict.class, conflict);
            // the caller's transaction is still usable after the unique violation
            assertTrue(payments.transition(c3, Payment.FAILED).apply(c).applied());
            c.rollback();
            c.setAutoCommit(true);
        }
        assertEquals(Payment.PENDING.code(), status(a), "rolled back with the caller's transaction");
        assertEquals(Payment.PENDING.code(), status(c3));
        try (Connection c = db.dataSource().getConnection()) {
            c.setAutoCommit(false);
            assertTrue(payments.transition(a, Payment.PAID).apply(c).applied());
            c.commit();
            c.setAutoCommit(true);
        }
        assertEquals(Payment.PAID.code(), status(a), "committed with the caller's transaction");
    }

    @Test
    void duplicateCallbacksApplyExactlyOnce() throws Exception {
        for (int round = 0; round < 5; round++) {
            long id = newOrder(Payment.PENDING);
            List<TransitionResult<Payment>> results =
                    race(RACERS, i -> payments.transition(id, Payment.PENDING, Payment.PAID)
                            .set("payment_transaction_id", "dup-" + id)
                            .setNow("paid_at")
                            .apply());
            assertEquals(1, count(results, TransitionResult.Applied.class), "exactly one applied: " + results);
            assertEquals(RACERS - 1, count(results, TransitionResult.AlreadyInTarget.class), results.toString());
            assertEquals(Payment.PAID.code(), status(id));
        }
    }

    @Test
    void paidAndFailedRacingOneWins() throws Exception {
        for (int round = 0; round < 10; round++) {
            long id = newOrder(Payment.PENDING);
            List<TransitionResult<Payment>> results = race(
                    RACERS, i -> payments.transition(id, Payment.PENDING, i % 2 == 0 ? Payment.PAID : Payment.FAILED)
                            .apply());
            List<TransitionResult<Payment>> applied = new ArrayList<>();
            for (TransitionResult<Payment> r : results) {
                if (r.applied()) {
                    applied.add(r);
                }
            }
            assertEquals(1, applied.size(), "exactly one winner: " + results);
            Payment winner = ((TransitionResult.Applied<Payment>) applied.get(0)).state();
            for (TransitionResult<Payment> r : results) {
                if (r instanceof TransitionResult.Rejected<Payment> rej) {
                    assertEquals(winner, rej.current(), "the loser sees the winner's state");
                } else if (!r.applied()) {
                    assertInstanceOf(TransitionResult.AlreadyInTarget.class, r);
                    assertEquals(winner, ((TransitionResult.AlreadyInTarget<Payment>) r).state());
                }
            }
            assertEquals(RACERS / 2 - 1, count(results, TransitionResult.AlreadyInTarget.class));
            assertEquals(RACERS / 2, count(results, TransitionResult.Rejected.class));
            assertEquals(winner.code(), status(id));
        }
    }

    @Test
    void sameTransactionIdRacingOnTwoOrders() throws Exception {
        for (int round = 0; round < 10; round++) {
            long a = newOrder(Payment.PENDING);
            long b = newOrder(Payment.PENDING);
            List<TransitionResult<Payment>> results =
                    race(2, i -> payments.transition(i == 0 ? a : b, Payment.PENDING, Payment.PAID)
                            .set("payment_transaction_id", "race-" + a)
                            .apply());
            assertEquals(1, count(results, TransitionResult.Applied.class), results.toString());
            assertEquals(1, count(results, TransitionResult.Conflict.class), results.toString());
        }
    }

    @Test
    void bulkExpiresOldPendingOrdersInBatchesSkippingLockedRows() throws Exception {
        assumeOneWriterNode("the held row lock must be seen by the sweep's SKIP LOCKED, on the same node");
        List<Long> old = new ArrayList<>();
        for (int i = 0; i < 250; i++) {
            long id = newOrder(Payment.PENDING);
            old.add(id);
        }
        db.execute("UPDATE " + orders + " SET created_at = " + kind.minutesAgo(30));
        for (int i = 0; i < 40; i++) {
            newOrder(Payment.PENDING); // fresh
        }
        long paidOld = newOrder(Payment.PAID);
        db.execute("UPDATE " + orders + " SET created_at = " + kind.minutesAgo(30) + " WHERE id = " + paidOld);

        long locked = old.get(7);
        try (Connection holder = db.connect()) {
            holder.setAutoCommit(false);
            try (Statement s = holder.createStatement()) {
                s.executeUpdate("UPDATE " + orders + " SET note = 'held' WHERE id = " + locked);
            }
            ExecutorService ex = Executors.newSingleThreadExecutor();
            try {
                Future<BulkResult> f = ex.submit(() -> payments.bulk(Payment.PENDING, Payment.EXPIRED)
                        .where(Condition.olderThan("created_at", Duration.ofMinutes(15)))
                        .batchSize(100)
                        .apply());
                BulkResult r = f.get(60, TimeUnit.SECONDS); // must not wait for the held row
                assertEquals(249, r.rows(), "every old pending row but the locked one");
                assertEquals(3, r.batches());
            } finally {
                ex.shutdownNow();
                holder.rollback();
            }
        }
        assertEquals(Payment.PENDING.code(), status(locked), "the locked row was skipped");
        assertEquals(Payment.PAID.code(), status(paidOld), "only the source state moves");
        BulkResult rest = payments.bulk(Payment.PENDING, Payment.EXPIRED)
                .where(Condition.olderThan("created_at", Duration.ofMinutes(15)))
                .apply();
        assertEquals(1, rest.rows(), "the skipped row is taken by the next sweep");
        try (Connection c = db.connect();
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT payment_status, COUNT(*) FROM " + orders
                        + " GROUP BY payment_status ORDER BY payment_status")) {
            Map<Integer, Integer> counts = new ConcurrentHashMap<>();
            while (rs.next()) {
                counts.put(rs.getInt(1), rs.getInt(2));
            }
            assertEquals(Map.of(0, 40, 1, 1, 3, 250), counts);
        }
    }

    @Test
    void identifiersAreValidatedBeforeAnySql() {
        String canary = TestDatabases.uniqueName("canary");
        tables.add(canary);
        db.execute("CREATE TABLE " + canary + " (id BIGINT PRIMARY KEY)");
        List<String> bad = List.of(
                "orders; DROP TABLE " + canary,
                "orders\"--",
                "orders`--",
                "a]b",
                "ｏrders",
                "",
                " orders",
                "1orders",
                "x".repeat(200),
                "a.b.c");
        for (String name : bad) {
            assertThrows(InvalidIdentifierException.class, () -> baton.table(name), name);
            assertThrows(
                    InvalidIdentifierException.class, () -> baton.table(orders).id(name), name);
            assertThrows(
                    InvalidIdentifierException.class, () -> baton.table(orders).state(name, Payment.MACHINE), name);
            assertThrows(
                    InvalidIdentifierException.class,
                    () -> payments.transition(1L, Payment.PAID).set(name, "x"),
                    name);
        }
        assertThrows(InvalidIdentifierException.class, () -> baton.table(null));
        assertThrows(
                InvalidIdentifierException.class,
                () -> baton.table("x".repeat(baton.dialect().traits().maxIdentifierLength() + 1)));
        try (Connection c = db.connect();
                Statement s = c.createStatement()) {
            s.executeQuery("SELECT COUNT(*) FROM " + canary).close();
        } catch (SQLException e) {
            throw new AssertionError("canary table is gone", e);
        }
    }

    @Test
    void reservedWordsWorkWhenQuoted() {
        String table = "order";
        String q = kind.quote(table);
        db.execute("DROP TABLE IF EXISTS " + q);
        db.execute("CREATE TABLE " + q + " (" + kind.quote("select") + " BIGINT PRIMARY KEY, " + kind.quote("user")
                + " INT NOT NULL, " + kind.quote("from") + " VARCHAR(10))");
        db.execute("INSERT INTO " + q + " VALUES (1, 0, NULL)");
        StateTable<Payment> t = baton.table(table).id("select").state("user", Payment.MACHINE);
        t.verify();
        assertTrue(t.transition(1L, Payment.PAID).set("from", "x").apply().applied());
        assertEquals(java.util.Optional.of(Payment.PAID), t.currentState(1L));
        db.execute("DROP TABLE " + q);
    }

    @Test
    void illegalTransitionsAndNullsFailBeforeSql() {
        long id = newOrder(Payment.PAID);
        assertThrows(IllegalTransitionException.class, () -> payments.transition(id, Payment.PAID, Payment.PENDING));
        assertThrows(IllegalTransitionException.class, () -> payments.transition(id, Payment.PAID, Payment.FAILED));
        assertThrows(IllegalTransitionException.class, () -> payments.transition(id, Payment.PENDING));
        assertThrows(IllegalTransitionException.class, () -> payments.bulk(Payment.FAILED, Payment.PENDING));
        assertThrows(NullPointerException.class, () -> payments.transition(null, Payment.PENDING, Payment.PAID));
        assertThrows(NullPointerException.class, () -> payments.transition(id, (Payment) null, Payment.PAID));
        assertThrows(NullPointerException.class, () -> payments.transition(id, Payment.PENDING, null));
        assertThrows(dev.baton.ConfigurationException.class, () -> payments.transition(id, Payment.PAID)
                .set("payment_status", 1));
        assertThrows(
                dev.baton.ConfigurationException.class,
                () -> payments.transition(id, Payment.PAID).set("note", "a").set("note", "b"));
        assertThrows(dev.baton.ConfigurationException.class, () -> payments.bulk(Payment.PENDING, Payment.EXPIRED)
                .batchSize(0));
        assertThrows(dev.baton.ConfigurationException.class, () -> payments.bulk(Payment.PENDING, Payment.EXPIRED)
                .batchSize(-1));
        assertThrows(dev.baton.ConfigurationException.class, () -> payments.bulk(Payment.PENDING, Payment.EXPIRED)
                .batchSize(1_000_000));
        assertEquals(Payment.PAID.code(), status(id));
    }

    @Test
    void unknownStoredCodeIsATypedErrorNamingTableIdAndValue() {
        long id = newOrder(Payment.PENDING);
        db.execute("UPDATE " + orders + " SET payment_status = 99 WHERE id = " + id);
        UnknownStateException e =
                assertThrows(UnknownStateException.class, () -> payments.transition(id, Payment.PENDING, Payment.PAID)
                        .apply());
        assertEquals(99, ((Number) e.rawValue()).intValue());
        assertEquals(id, ((Number) e.id()).longValue());
        assertTrue(e.getMessage().contains(orders) && e.getMessage().contains("99"), e.getMessage());
        assertEquals(99, status(id), "nothing written");
        assertThrows(UnknownStateException.class, () -> payments.currentState(id));
    }

    @Test
    void unknownStringCodeIsNotTrimmedOrFolded() {
        String bills = TestDatabases.uniqueName("bills");
        tables.add(bills);
        db.execute("CREATE TABLE " + bills + " (id BIGINT PRIMARY KEY, state VARCHAR(16) NOT NULL)");
        db.execute("INSERT INTO " + bills + " VALUES (1, 'paying '), (2, 'PAYING'), (3, 'paying')");
        StateTable<Bill> t = baton.table(bills).state("state", Bill.MACHINE);
        t.verify();
        UnknownStateException e =
                assertThrows(UnknownStateException.class, () -> t.transition(1L, Bill.PAYING, Bill.PAID)
                        .apply());
        assertEquals("paying ", e.rawValue());
        assertThrows(UnknownStateException.class, () -> t.transition(2L, Bill.PAYING, Bill.PAID)
                .apply());
        assertTrue(t.transition(3L, Bill.PAYING, Bill.PAID).apply().applied());
    }

    @Test
    void verifyNamesTheDdlThatFixesTheTable() {
        String loose = TestDatabases.uniqueName("loose");
        tables.add(loose);
        db.execute("CREATE TABLE " + loose + " (id BIGINT NOT NULL, other INT)");
        StateTable<Payment> t = baton.table(loose).state("payment_status", Payment.MACHINE);
        SchemaMismatchException e = assertThrows(SchemaMismatchException.class, t::verify);
        assertEquals(2, e.problems().size(), e.getMessage());
        assertEquals(2, e.ddl().size(), e.getMessage());
        db.execute(e.ddl().toArray(new String[0])); // the suggested DDL is valid and sufficient
        t.verify();

        SchemaMismatchException missing =
                assertThrows(SchemaMismatchException.class, () -> baton.table(TestDatabases.uniqueName("absent"))
                        .state("s", Payment.MACHINE)
                        .verify());
        assertTrue(missing.getMessage().contains("does not exist"), missing.getMessage());

        SchemaMismatchException wrongType = assertThrows(SchemaMismatchException.class, () -> baton.table(orders)
                .state("payment_transaction_id", Payment.MACHINE)
                .verify());
        assertTrue(wrongType.getMessage().contains("integer"), wrongType.getMessage());
        payments.verify();
    }

    @Test
    void aCallerRepeatableReadSnapshotDoesNotHideTheCurrentState() throws SQLException {
        long id = newOrder(Payment.PENDING);
        try (Connection c = db.dataSource().getConnection()) {
            c.setTransactionIsolation(Connection.TRANSACTION_REPEATABLE_READ);
            c.setAutoCommit(false);
            assertEquals(java.util.Optional.of(Payment.PENDING), payments.currentState(c, id)); // snapshot taken
            assertTrue(payments.transition(id, Payment.PAID).apply().applied()); // another request pays meanwhile
            if (kind.refusesUpdateAfterSnapshotChange()) {
                // PostgreSQL refuses the update of a row changed after the snapshot: retry at READ COMMITTED
                dev.baton.DataAccessException e =
                        assertThrows(dev.baton.DataAccessException.class, () -> payments.transition(
                                        id, Payment.PENDING, Payment.PAID)
                                .apply(c));
                assertEquals("40001", e.sqlState());
            } else {
                // the guarded update matches nothing; the read that explains why must see the committed PAID
                assertEquals(
                        new TransitionResult.AlreadyInTarget<>(id, Payment.PAID),
                        payments.transition(id, Payment.PENDING, Payment.PAID).apply(c));
            }
            c.rollback();
            c.setAutoCommit(true);
            c.setTransactionIsolation(Connection.TRANSACTION_READ_COMMITTED);
        }
    }

    @Test
    void aLostConnectionIsRetriedOnAFreshOne() {
        assumeOneWriterNode("KILL must reach the victim's node, and connection ids are per node");
        long id = newOrder(Payment.PENDING);
        AtomicLong retries = new AtomicLong();
        Baton flaky = Baton.builder(new KilledFirstConnection(db, 1))
                .dialect(baton.dialect())
                .listener(new BatonListener() {
                    @Override
                    public void onTransientRetry(String operation, int attempt, SQLException cause) {
                        retries.incrementAndGet();
                    }
                })
                .build();
        StateTable<Payment> t = flaky.table(orders).state("payment_status", Payment.MACHINE);
        assertEquals(
                new TransitionResult.Applied<>(id, Payment.PAID),
                t.transition(id, Payment.PAID).apply());
        assertEquals(1, retries.get(), "the terminated connection was classified as lost and retried once");
        Baton dead = Baton.builder(new KilledFirstConnection(db, 100))
                .dialect(baton.dialect())
                .transientRetry(
                        dev.baton.RetryPolicy.fixed(Duration.ofMillis(1)).maxAttempts(2))
                .build();
        dev.baton.DataAccessException e = assertThrows(dev.baton.DataAccessException.class, () -> dead.table(orders)
                .state("payment_status", Payment.MACHINE)
                .transition(id, Payment.PAID)
                .apply());
        assertTrue(e.getMessage().contains("after 2 attempts"), e.getMessage());
    }

    @Test
    void listenersSeeCommittedResultsAndCannotBreakThem() {
        List<TransitionResult<?>> seen = new CopyOnWriteArrayList<>();
        Baton listening = Baton.builder(db.dataSource())
                .listener(new BatonListener() {
                    @Override
                    public void onTransition(String table, TransitionResult<?> result) {
                        throw new IllegalStateException("listener bug");
                    }
                })
                .listener(new BatonListener() {
                    @Override
                    public void onTransition(String table, TransitionResult<?> result) {
                        seen.add(result);
                    }
                })
                .build();
        StateTable<Payment> t = listening.table(orders).state("payment_status", Payment.MACHINE);
        long id = newOrder(Payment.PENDING);
        assertTrue(t.transition(id, Payment.PAID).apply().applied());
        assertFalse(t.transition(id, Payment.PAID).apply().applied());
        assertEquals(
                List.of(
                        new TransitionResult.Applied<>(id, Payment.PAID),
                        new TransitionResult.AlreadyInTarget<>(id, Payment.PAID)),
                seen);
    }

    /** Runs {@code n} calls at once (released together) and returns their results in order. */
    protected <T> List<T> race(int n, Races.Call<T> call) throws Exception {
        return Races.run(n, call); // an exception in any call fails the test: 0 errors allowed
    }

    private static long count(List<? extends TransitionResult<?>> results, Class<?> type) {
        return results.stream().filter(type::isInstance).count();
    }
}
