package dev.baton.testkit.compat;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.fail;

import dev.baton.Baton;
import dev.baton.Message;
import dev.baton.Outbox;
import dev.baton.OutcomeInDoubtException;
import dev.baton.StateTable;
import dev.baton.TransitionResult;
import dev.baton.spi.Dialect;
import dev.baton.testkit.DatabaseSuite;
import dev.baton.testkit.faults.Fault;
import dev.baton.testkit.faults.FaultPoint;
import dev.baton.testkit.faults.FaultyDataSource;
import dev.baton.testkit.faults.Step;
import dev.baton.testkit.faults.StepKind;
import dev.baton.testservers.TestDatabase;
import dev.baton.testservers.TestDatabases;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;

/**
 * Whole caller transactions under faults: {@link Baton#inTransaction} running a payment team's typical work (a
 * guarded transition, a ledger insert of the caller's own, an outbox message) × every {@link FaultPoint} × every JDBC
 * step the work issues (found by a recording dry run), with and without the receipt table. After each case: the
 * order is paid once, one ledger line and one message exist, and the call's answer is true.
 *
 * <p>With the receipt table every case must end in {@code Applied} (a fault fires once, so the retries meet a healthy
 * server); a lost COMMIT reply is read back, never run again. Without it, a lost COMMIT reply may only end in {@link
 * OutcomeInDoubtException}, and never in a second run of the work.
 */
public abstract class AbstractCallerTransactionFaultTest extends DatabaseSuite {
    private TestDatabase db;
    private FaultyDataSource faults;
    private String orders;
    private String ledger;
    private String outboxTable;
    private String receiptsTable;
    private Work withReceipts;
    private Work withoutReceipts;
    private final AtomicInteger nextOrder = new AtomicInteger(1);
    private int cases;
    private int inDoubt;

    /** The work under test, bound to one {@code Baton} over the faulty data source. */
    private record Work(Baton baton, StateTable<Payment> payments, Outbox outbox) {}

    @Override
    protected void setUp() {
        db = database();
        Baton real = Baton.using(db.dataSource());
        Dialect dialect = real.dialect();
        orders = TestDatabases.uniqueName("ctx_orders");
        ledger = TestDatabases.uniqueName("ctx_ledger");
        outboxTable = TestDatabases.uniqueName("ctx_obox");
        receiptsTable = TestDatabases.uniqueName("ctx_rcpt");
        db.execute(
                "CREATE TABLE " + orders + " (id BIGINT NOT NULL PRIMARY KEY, payment_status INT NOT NULL)",
                "CREATE TABLE " + ledger + " (order_id BIGINT NOT NULL, amount INT NOT NULL)");
        real.ownTables().createOutboxTable(outboxTable);
        real.ownTables().createReceiptsTable(receiptsTable);
        faults = new FaultyDataSource(db);
        withReceipts = work(Baton.builder(faults)
                .dialect(dialect)
                .receiptsTable(receiptsTable)
                .build());
        withoutReceipts = work(Baton.builder(faults)
                .dialect(dialect)
                .receiptsTable(receiptsTable + "_absent")
                .build());
    }

    private Work work(Baton baton) {
        return new Work(
                baton,
                baton.table(orders).state("payment_status", Payment.MACHINE),
                baton.outbox(outboxTable, Outbox.Options.defaults()));
    }

    @Override
    protected void tearDown() {
        System.out.println("[caller-transaction faults] " + db.name() + ": " + cases + " case(s), " + inDoubt
                + " answered OutcomeInDoubtException (no receipt table), 0 violations");
        db.dropTableIfExists(orders);
        db.dropTableIfExists(ledger);
        db.dropTableIfExists(outboxTable);
        db.dropTableIfExists(receiptsTable);
    }

    private TransitionResult<Payment> pay(Work w, long id) {
        return w.baton.inTransaction(c -> {
            TransitionResult<Payment> t =
                    w.payments.transition(id, Payment.PENDING, Payment.PAID).apply();
            // the caller's own insert, unconditional (an audit line): a second run of the work doubles it
            try (PreparedStatement ps =
                    c.prepareStatement("INSERT INTO " + ledger + " (order_id, amount) VALUES (?, ?)")) {
                ps.setLong(1, id);
                ps.setInt(2, 100);
                ps.executeUpdate();
            }
            if (t instanceof TransitionResult.Applied<Payment>) {
                w.outbox.enqueue(Message.of("payment.paid." + id, Long.toString(id)));
            }
            return t;
        });
    }

    @TestFactory
    List<DynamicTest> inTransactionUnderEveryFault() {
        Optional<DynamicTest> skipped = skippedFactory("inTransaction under every fault");
        if (skipped.isPresent()) {
            return List.of(skipped.get());
        }
        List<DynamicTest> tests = new ArrayList<>();
        for (boolean receipts : new boolean[] {true, false}) {
            Work w = receipts ? withReceipts : withoutReceipts;
            String variant = receipts ? "with receipts" : "without receipts";
            pay(w, newOrder()); // once before the dry run: the receipt table's probe and purge run on first use
            long dryId = newOrder();
            faults.arm(null);
            try {
                pay(w, dryId);
            } finally {
                faults.disarm();
            }
            List<Step> steps = new ArrayList<>();
            for (Step s : faults.steps()) {
                if (s.kind().faultable()) {
                    steps.add(s);
                }
            }
            System.out.println("[caller-transaction faults] " + db.name() + " " + variant + ": " + steps.size()
                    + " step(s) " + steps);
            for (FaultPoint point : FaultPoint.values()) {
                for (Step s : steps) {
                    Fault fault = Fault.atStep(point, s.index());
                    tests.add(DynamicTest.dynamicTest(
                            variant + " × " + point + " × " + s.index() + " (" + s.kind() + ")",
                            () -> runCase(w, receipts, fault)));
                }
            }
        }
        return tests;
    }

    private void runCase(Work w, boolean receipts, Fault fault) throws SQLException {
        cases++;
        long id = newOrder();
        TransitionResult<Payment> result = null;
        RuntimeException thrown = null;
        faults.arm(fault);
        try {
            result = pay(w, id);
        } catch (RuntimeException e) {
            thrown = e;
        } finally {
            faults.disarm();
        }
        String story =
                fault + ", fired at " + faults.fired().map(Step::toString).orElse("nothing") + "; result " + result
                        + ", thrown " + thrown + "\n" + faults.describe();
        int paid = count("SELECT COUNT(*) FROM " + orders + " WHERE id = ? AND payment_status = 1", id);
        int lines = count("SELECT COUNT(*) FROM " + ledger + " WHERE order_id = ?", id);
        int messages = count("SELECT COUNT(*) FROM " + outboxTable + " WHERE topic = ?", id);
        if (lines > 1 || messages > 1) {
            fail("the work ran twice: " + lines + " ledger line(s), " + messages + " message(s); " + story);
        }
        if (thrown == null) {
            assertInstanceOf(TransitionResult.Applied.class, result, "the call's own transition; " + story);
            assertEquals(1, paid, story);
            assertEquals(1, lines, story);
            assertEquals(1, messages, story);
            return;
        }
        // a COMMIT that failed, sent or not (the driver cannot tell the two apart): only the server knows
        boolean lostCommit =
                faults.fired().map(s -> s.kind() == StepKind.COMMIT).orElse(false) && fault.point() != FaultPoint.DELAY;
        if (receipts || !lostCommit || !(thrown instanceof OutcomeInDoubtException)) {
            throw new AssertionError(
                    "only a lost COMMIT without receipts may throw, and only in doubt; " + story, thrown);
        }
        inDoubt++;
        assertEquals(paid, lines, "all or nothing; " + story);
        assertEquals(paid, messages, "all or nothing; " + story);
    }

    /** The receipt table answers a lost COMMIT reply with the committed attempt's own result and listener calls. */
    @Test
    void aLostCommitReplyIsReadBackAndTheWorkRunsOnce() throws SQLException {
        long id = newOrder();
        faults.arm(Fault.on(FaultPoint.LOST_REPLY, StepKind.COMMIT, 1));
        TransitionResult<Payment> r;
        try {
            r = pay(withReceipts, id);
        } finally {
            faults.disarm();
        }
        assertEquals(
                StepKind.COMMIT,
                faults.fired()
                        .orElseThrow(() -> new AssertionError("no commit"))
                        .kind(),
                faults.describe());
        assertInstanceOf(TransitionResult.Applied.class, r, faults.describe());
        assertEquals(1, count("SELECT COUNT(*) FROM " + ledger + " WHERE order_id = ?", id), faults.describe());
        assertEquals(1, count("SELECT COUNT(*) FROM " + outboxTable + " WHERE topic = ?", id), faults.describe());
    }

    /** Without the receipt table a lost COMMIT reply is an {@link OutcomeInDoubtException}, never a second run. */
    @Test
    void withoutReceiptsALostCommitReplyIsInDoubtAndNotRunAgain() throws SQLException {
        long id = newOrder();
        faults.arm(Fault.on(FaultPoint.LOST_REPLY, StepKind.COMMIT, 1));
        try {
            pay(withoutReceipts, id);
            fail("a lost COMMIT reply without receipts must be in doubt");
        } catch (OutcomeInDoubtException expected) {
            // the caller is told it may have committed
        } finally {
            faults.disarm();
        }
        assertEquals(1, count("SELECT COUNT(*) FROM " + ledger + " WHERE order_id = ?", id), faults.describe());
        assertEquals(1, count("SELECT COUNT(*) FROM " + outboxTable + " WHERE topic = ?", id), faults.describe());
    }

    /** A caller's own retry loop around its own transactions, with {@code baton.receipts()}: the same rule. */
    @Test
    void aCallersRetryWithAReceiptStopsAfterALostCommitReply() throws SQLException {
        long id = newOrder();
        long receipt = dev.baton.TransactionReceipts.newReceipt();
        Baton baton = withReceipts.baton;
        List<String> answers = new ArrayList<>();
        faults.arm(Fault.on(FaultPoint.LOST_REPLY, StepKind.COMMIT, 1));
        try {
            for (int attempt = 1; attempt <= 3; attempt++) {
                try (Connection c = faults.getConnection()) {
                    c.setAutoCommit(false);
                    String answer = baton.receipts().record(c, receipt) ? "ran" : "already committed";
                    answers.add(answer);
                    if (answer.equals("ran")) {
                        try (PreparedStatement ps =
                                c.prepareStatement("INSERT INTO " + ledger + " (order_id, amount) VALUES (?, ?)")) {
                            ps.setLong(1, id);
                            ps.setInt(2, 100);
                            ps.executeUpdate();
                        }
                    }
                    c.commit();
                    break;
                } catch (SQLException lost) {
                    answers.add("lost: " + lost.getSQLState());
                }
            }
        } finally {
            faults.disarm();
        }
        assertEquals(List.of("ran", "lost: 08006", "already committed"), answers, faults.describe());
        assertEquals(1, count("SELECT COUNT(*) FROM " + ledger + " WHERE order_id = ?", id), faults.describe());
    }

    /**
     * A statement timeout inside the work (the transition waits on a row lock another session holds): the timeout is
     * transient, the whole transaction runs again once the lock is gone, and the work's effects are there once.
     */
    @Test
    void aStatementTimeoutInsideTheWorkRunsTheWholeTransactionAgainOnce() throws Exception {
        long id = newOrder();
        Baton baton = Baton.builder(faults) // unarmed: a new session per connection, so the timeout dies with it
                .dialect(withReceipts.baton.dialect())
                .receiptsTable(receiptsTable)
                .transientRetry(dev.baton.RetryPolicy.fixed(java.time.Duration.ofMillis(100))
                        .maxAttempts(30))
                .build();
        Work w = work(baton);
        String timeout = db.kind() == dev.baton.testservers.DatabaseKind.POSTGRES
                ? "SET LOCAL statement_timeout = 300"
                : "SET SESSION max_statement_time = 0.3";
        AtomicInteger attempts = new AtomicInteger();
        try (Connection locker = db.connect()) {
            locker.setAutoCommit(false);
            try (PreparedStatement lock =
                    locker.prepareStatement("SELECT id FROM " + orders + " WHERE id = ? FOR UPDATE")) {
                lock.setLong(1, id);
                lock.executeQuery().close();
            }
            Thread release = new Thread(() -> {
                try {
                    Thread.sleep(1_000);
                    locker.rollback();
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            });
            release.start();
            TransitionResult<Payment> r = w.baton.inTransaction(c -> {
                attempts.incrementAndGet();
                try (java.sql.Statement st = c.createStatement()) {
                    st.execute(timeout);
                }
                TransitionResult<Payment> t =
                        w.payments.transition(id, Payment.PENDING, Payment.PAID).apply();
                try (PreparedStatement ps =
                        c.prepareStatement("INSERT INTO " + ledger + " (order_id, amount) VALUES (?, ?)")) {
                    ps.setLong(1, id);
                    ps.setInt(2, 100);
                    ps.executeUpdate();
                }
                if (t instanceof TransitionResult.Applied<Payment>) {
                    w.outbox.enqueue(Message.of("payment.paid." + id, Long.toString(id)));
                }
                return t;
            });
            release.join();
            assertInstanceOf(TransitionResult.Applied.class, r);
        }
        org.junit.jupiter.api.Assertions.assertTrue(attempts.get() > 1, "the timeout ran the work again: " + attempts);
        assertEquals(1, count("SELECT COUNT(*) FROM " + ledger + " WHERE order_id = ?", id));
        assertEquals(1, count("SELECT COUNT(*) FROM " + outboxTable + " WHERE topic = ?", id));
    }

    private long newOrder() {
        long id = nextOrder.getAndIncrement();
        db.execute("INSERT INTO " + orders + " (id, payment_status) VALUES (" + id + ", 0)");
        return id;
    }

    private int count(String sql, long id) throws SQLException {
        try (Connection c = db.connect();
                PreparedStatement ps = c.prepareStatement(sql)) {
            if (sql.contains("topic")) {
                ps.setString(1, "payment.paid." + id);
            } else {
                ps.setLong(1, id);
            }
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getInt(1);
            }
        }
    }
}
