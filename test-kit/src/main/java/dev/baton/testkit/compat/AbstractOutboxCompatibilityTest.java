package dev.baton.testkit.compat;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.baton.Baton;
import dev.baton.BulkResult;
import dev.baton.ClaimedRow;
import dev.baton.EnqueueResult;
import dev.baton.IllegalKeyException;
import dev.baton.Message;
import dev.baton.Outbox;
import dev.baton.OutboxMessage;
import dev.baton.PayloadTooLargeException;
import dev.baton.RetryPolicy;
import dev.baton.StateTable;
import dev.baton.TransitionResult;
import dev.baton.Worker;
import dev.baton.testkit.DatabaseSuite;
import dev.baton.testkit.faults.Fault;
import dev.baton.testkit.faults.FaultPoint;
import dev.baton.testkit.faults.FaultyDataSource;
import dev.baton.testkit.faults.StepKind;
import dev.baton.testservers.JvmProcess;
import dev.baton.testservers.TestDatabase;
import dev.baton.testservers.TestDatabases;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The behaviour of the transactional outbox, defined once and run by every dialect module against real servers. */
public abstract class AbstractOutboxCompatibilityTest extends DatabaseSuite {
    private TestDatabase db;
    private Baton baton;
    private String table;
    private String orders;
    private Outbox outbox;

    @Override
    protected void setUp() {
        db = database();
        baton = Baton.using(db.dataSource());
    }

    @BeforeEach
    void tables() {
        table = TestDatabases.uniqueName("outbox");
        assertTrue(baton.ownTables().createOutboxTable(table));
        outbox = baton.outbox(
                table,
                Outbox.Options.defaults().retry(RetryPolicy.fixed(Duration.ZERO).maxAttempts(3)));
        orders = TestDatabases.uniqueName("orders");
        db.execute("CREATE TABLE " + orders + " (id BIGINT PRIMARY KEY, payment_status INT NOT NULL,"
                + " payment_transaction_id VARCHAR(64) NULL UNIQUE)");
    }

    @AfterEach
    void drop() {
        db.dropTableIfExists(table);
        db.dropTableIfExists(orders);
    }

    private int count(String where) {
        try (Connection c = db.connect();
                Statement s = c.createStatement();
                ResultSet rs =
                        s.executeQuery("SELECT COUNT(*) FROM " + table + (where.isEmpty() ? "" : " WHERE " + where))) {
            rs.next();
            return rs.getInt(1);
        } catch (SQLException e) {
            throw new AssertionError(e);
        }
    }

    @Test
    void theShippedTableIsCreatedOnceAndServesItsClaim() {
        assertTrue(!baton.ownTables().createOutboxTable(table), "creating it again is a no-op");
        outbox.queue().verify(); // the library's own table serves its claim with an index
    }

    @Test
    void aRolledBackTransactionLeavesNoMessageAndACommittedOneExactlyOne() throws SQLException {
        try (Connection c = db.dataSource().getConnection()) {
            c.setAutoCommit(false);
            assertInstanceOf(EnqueueResult.Enqueued.class, outbox.enqueue(c, Message.of("t", "rolled back")));
            c.rollback();
            assertInstanceOf(EnqueueResult.Enqueued.class, outbox.enqueue(c, Message.of("t", "committed")));
            c.commit();
            c.setAutoCommit(true);
        }
        assertEquals(1, count(""));
        List<ClaimedRow<Outbox.Status>> rows = outbox.queue().claim(10);
        assertEquals(1, rows.size());
        OutboxMessage m = outbox.toMessage(rows.get(0));
        assertEquals("committed", m.payloadText());
        assertEquals("t", m.topic());
        assertEquals(1, m.attempt());
        assertEquals("outbox:" + m.id(), m.idempotencyKey());
    }

    @Test
    void aDuplicateDedupKeyIsReportedAndTheTransactionStaysUsable() throws SQLException {
        try (Connection c = db.dataSource().getConnection()) {
            c.setAutoCommit(false);
            assertInstanceOf(
                    EnqueueResult.Enqueued.class,
                    outbox.enqueue(c, Message.of("t", "a").dedupKey("d-1")));
            assertEquals(
                    new EnqueueResult.Duplicate("d-1"),
                    outbox.enqueue(c, Message.of("t", "b").dedupKey("d-1")));
            assertInstanceOf(
                    EnqueueResult.Enqueued.class,
                    outbox.enqueue(c, Message.of("t", "c").dedupKey("D-1")),
                    "dedup keys compare exactly");
            c.commit();
            c.setAutoCommit(true);
        }
        assertEquals(2, count(""));
        assertEquals(
                new EnqueueResult.Duplicate("d-1"),
                outbox.enqueue(Message.of("t", "x").dedupKey("d-1")));
    }

    @Test
    void headersAndBinaryPayloadsRoundTrip() {
        byte[] payload = {0, 1, 2, (byte) 0xff, 10, 13};
        outbox.enqueue(Message.of("bin", payload).key("k").header("a", "1").header("x=y", "line\nbreak %25"));
        OutboxMessage m = outbox.toMessage(outbox.queue().claim(1).get(0));
        assertTrue(java.util.Arrays.equals(payload, m.payload()));
        assertEquals(Map.of("a", "1", "x=y", "line\nbreak %25"), m.headers());
        assertEquals("k", m.key());
    }

    @Test
    void concurrentIdenticalCallbacksApplyOnceAndEnqueueOnce() throws Exception {
        db.execute("INSERT INTO " + orders + " (id, payment_status) VALUES (1, 0), (2, 0)");
        StateTable<Payment> payments = baton.table(orders).state("payment_status", Payment.MACHINE);
        List<TransitionResult<Payment>> results = Races.run(
                50,
                i -> outbox.transitionAndEnqueue(
                        payments.transition(1L, Payment.PENDING, Payment.PAID).set("payment_transaction_id", "tx-1"),
                        Message.of("order.paid", "1").key("order-1")));
        assertEquals(1, results.stream().filter(TransitionResult::applied).count(), results.toString());
        assertEquals(
                49,
                results.stream()
                        .filter(r -> r instanceof TransitionResult.AlreadyInTarget)
                        .count());
        assertEquals(1, count(""), "exactly one message for the applied transition");
        // a rejected transition and a conflicting one enqueue nothing
        assertInstanceOf(
                TransitionResult.Rejected.class,
                outbox.transitionAndEnqueue(
                        payments.transition(1L, Payment.PENDING, Payment.FAILED), Message.of("order.failed", "1")));
        assertInstanceOf(
                TransitionResult.Conflict.class,
                outbox.transitionAndEnqueue(
                        payments.transition(2L, Payment.PENDING, Payment.PAID).set("payment_transaction_id", "tx-1"),
                        Message.of("order.paid", "2")));
        assertEquals(1, count(""));
    }

    @Test
    void dispatchersDeliverEveryMessageOnceRetryingFailures() throws Exception {
        int n = 300;
        for (int i = 0; i < n; i++) {
            outbox.enqueue(Message.of("t", "m" + i));
        }
        Map<Long, Integer> delivered = new ConcurrentHashMap<>();
        Map<Long, Integer> tries = new ConcurrentHashMap<>();
        List<Worker> workers = new ArrayList<>();
        for (int w = 0; w < 2; w++) {
            workers.add(outbox.dispatcher(m -> {
                        int attempt = tries.merge(m.id(), 1, Integer::sum);
                        if (m.id() % 10 == 0 && attempt == 1) {
                            throw new IllegalStateException("broker hiccup");
                        }
                        if (m.id() % 97 == 0) {
                            throw new IllegalStateException("poison");
                        }
                        delivered.merge(m.id(), 1, Integer::sum);
                    })
                    .batchSize(25)
                    .concurrency(2)
                    .pollInterval(Duration.ofMillis(10), Duration.ofMillis(100))
                    .start());
        }
        try {
            for (int i = 0; i < 600 && count("status IN (0, 1)") > 0; i++) {
                Thread.sleep(100);
            }
        } finally {
            workers.forEach(Worker::close);
        }
        int poison = count("status = 3");
        assertTrue(poison >= 1, "poison messages went dead");
        assertEquals(n - poison, delivered.size());
        assertTrue(delivered.values().stream().allMatch(v -> v == 1), "each message delivered once");
        assertEquals(n - poison, count("status = 2"));
    }

    @Test
    void messagesOfOneKeyAreDeliveredInEnqueueOrder() throws Exception {
        int n = 1000;
        int keys = 20;
        try (Connection c = db.dataSource().getConnection()) {
            c.setAutoCommit(false);
            for (int i = 0; i < n; i++) {
                outbox.enqueue(c, Message.of("t", "m" + i).key("k" + (i % keys)));
            }
            c.commit();
            c.setAutoCommit(true);
        }
        Map<String, List<Long>> order = new ConcurrentHashMap<>();
        AtomicInteger inFlightSameKey = new AtomicInteger();
        Map<String, AtomicInteger> busy = new ConcurrentHashMap<>();
        CountDownLatch all = new CountDownLatch(n);
        List<Worker> workers = new ArrayList<>();
        for (int w = 0; w < 4; w++) {
            workers.add(outbox.dispatcher(m -> {
                        if (busy.computeIfAbsent(m.key(), k -> new AtomicInteger())
                                        .incrementAndGet()
                                > 1) {
                            inFlightSameKey.incrementAndGet();
                        }
                        order.computeIfAbsent(m.key(), k -> Collections.synchronizedList(new ArrayList<>()))
                                .add(m.id());
                        if (m.id() % 7 == 0 && m.attempt() == 1) {
                            busy.get(m.key()).decrementAndGet();
                            throw new IllegalStateException("retry me"); // a retry must not let later ones pass
                        }
                        busy.get(m.key()).decrementAndGet();
                        all.countDown();
                    })
                    .batchSize(10)
                    .concurrency(2)
                    .pollInterval(Duration.ofMillis(10), Duration.ofMillis(100))
                    .start());
        }
        try {
            assertTrue(all.await(120, TimeUnit.SECONDS), "all delivered");
        } finally {
            workers.forEach(Worker::close);
        }
        assertEquals(0, inFlightSameKey.get(), "never two messages of one key at once");
        for (Map.Entry<String, List<Long>> e : order.entrySet()) {
            List<Long> ids = new ArrayList<>(e.getValue());
            List<Long> firstSeen = new ArrayList<>();
            for (Long id : ids) {
                if (firstSeen.isEmpty() || !firstSeen.get(firstSeen.size() - 1).equals(id)) {
                    firstSeen.add(id);
                }
            }
            List<Long> sorted = new ArrayList<>(firstSeen);
            Collections.sort(sorted);
            assertEquals(sorted, firstSeen, "key " + e.getKey() + " delivered in enqueue order");
        }
        assertEquals(keys, order.size());
    }

    @Test
    void twoDispatcherProcessesDeliverEachMessageOnce() throws Exception {
        int n = 2000;
        try (Connection c = db.dataSource().getConnection()) {
            c.setAutoCommit(false);
            for (int i = 0; i < n; i++) {
                outbox.enqueue(c, Message.of("t", "m" + i).key(i % 3 == 0 ? null : "k" + (i % 50)));
            }
            c.commit();
            c.setAutoCommit(true);
        }
        List<String> lines = new ArrayList<>();
        List<JvmProcess> procs = new ArrayList<>();
        try {
            for (int p = 0; p < 2; p++) {
                procs.add(JvmProcess.builder(OutboxDispatcherMain.class)
                        .jvmArgs("-Xmx256m")
                        .args(
                                db.jdbcUrl(),
                                db.user(),
                                db.password() == null || db.password().isEmpty() ? "-" : db.password(),
                                table,
                                "4")
                        .start());
            }
            for (JvmProcess p : procs) {
                assertTrue(p.waitFor(Duration.ofMinutes(3)), String.join("\n", p.outputLines()));
                assertEquals(0, p.exitValue(), String.join("\n", p.outputLines()));
                lines.addAll(p.outputLines());
            }
        } finally {
            procs.forEach(JvmProcess::close);
        }
        Map<Long, Integer> delivered = new HashMap<>();
        for (String l : lines) {
            if (l.startsWith("DELIVER ")) {
                delivered.merge(Long.parseLong(l.split(" ")[1]), 1, Integer::sum);
            }
        }
        assertEquals(n, delivered.size(), "every message delivered");
        assertTrue(delivered.values().stream().allMatch(v -> v == 1), "no message delivered twice");
        assertEquals(n, count("status = 2"));
    }

    @Test
    void deliveredMessagesArePurgedByAge() {
        for (int i = 0; i < 30; i++) {
            outbox.enqueue(Message.of("t", "m" + i));
        }
        List<ClaimedRow<Outbox.Status>> rows = outbox.queue().claim(20);
        for (ClaimedRow<Outbox.Status> r : rows) {
            outbox.queue().complete(r, Outbox.Status.DELIVERED);
        }
        assertEquals(new BulkResult(0, 1), outbox.purgeDelivered(Duration.ofHours(1)), "too young");
        Baton later = Baton.builder(db.dataSource())
                .dialect(new ShiftedClockDialect(
                        baton.dialect(), Duration.ofHours(2).toMillis()))
                .build();
        assertEquals(new BulkResult(20, 1), later.outbox(table).purgeDelivered(Duration.ofHours(1)));
        assertEquals(10, count(""), "pending messages stay");
    }

    /**
     * Per-key order survives a dead letter: the broker refuses the capture until the operator fixes it and requeues
     * it; meanwhile the refund of the same key waits behind the dead capture instead of going first.
     */
    @Test
    void aDeadMessageHoldsItsKeySoARequeueKeepsTheOrder() throws Exception {
        Outbox ordered = baton.outbox(
                table,
                Outbox.Options.defaults()
                        .orderedPerKey(true)
                        .retry(RetryPolicy.fixed(Duration.ZERO).maxAttempts(1)));
        long captured = ((EnqueueResult.Enqueued)
                        ordered.enqueue(Message.of("payment.captured", "{}").key("order-7")))
                .id();
        ordered.enqueue(Message.of("payment.refunded", "{}").key("order-7"));
        ordered.enqueue(Message.of("payment.captured", "{}").key("order-8")); // another key is not held
        java.util.concurrent.atomic.AtomicBoolean brokerRefuses = new java.util.concurrent.atomic.AtomicBoolean(true);
        List<String> received = Collections.synchronizedList(new ArrayList<>());
        Worker w = ordered.dispatcher(m -> {
                    if (m.id() == captured && brokerRefuses.get()) {
                        throw new IllegalStateException("broker refuses " + m.topic());
                    }
                    received.add(m.key() + " " + m.topic());
                })
                .pollInterval(Duration.ofMillis(20), Duration.ofMillis(100))
                .start();
        try {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
            while ((ordered.deadLetters().count(1000) == 0 || received.isEmpty()) && System.nanoTime() < deadline) {
                Thread.sleep(20);
            }
            assertEquals(1, ordered.deadLetters().count(1000), "the capture is dead");
            Thread.sleep(500); // several polls: the refund must wait behind the dead capture
            assertEquals(List.of("order-8 payment.captured"), received, "only the other key moved on");
            brokerRefuses.set(false);
            assertInstanceOf(
                    TransitionResult.Applied.class, ordered.deadLetters().requeue(captured));
            while (received.size() < 3 && System.nanoTime() < deadline) {
                Thread.sleep(20);
            }
        } finally {
            w.close();
        }
        assertEquals(
                List.of("order-8 payment.captured", "order-7 payment.captured", "order-7 payment.refunded"),
                received,
                "order in which the sink received the messages");
    }

    /**
     * The purge's DELETE commits and the reply is lost: the retry deletes nothing more. The count must say it is a
     * lower bound, not report 0 as if nothing had been old enough.
     */
    @Test
    void aPurgeWhoseCommitReplyIsLostSaysItsCountIsALowerBound() {
        for (int i = 0; i < 3; i++) {
            outbox.enqueue(Message.of("t", "m" + i));
        }
        for (ClaimedRow<Outbox.Status> r : outbox.queue().claim(3)) {
            outbox.queue().complete(r, Outbox.Status.DELIVERED);
        }
        FaultyDataSource faults = new FaultyDataSource(db);
        Outbox later = Baton.builder(faults)
                .dialect(new ShiftedClockDialect(
                        baton.dialect(), Duration.ofHours(2).toMillis()))
                .build()
                .outbox(table);
        faults.arm(Fault.on(FaultPoint.LOST_REPLY, StepKind.COMMIT, 1));
        BulkResult r;
        try {
            r = later.purgeDelivered(Duration.ofHours(1));
        } finally {
            faults.disarm();
        }
        assertTrue(faults.fired().isPresent(), "the fault fired: " + faults.describe());
        assertEquals(0, count(""), "every delivered message is gone");
        assertTrue(
                r.rows() == 3 || r.countInDoubt(),
                "a purge that deleted 3 messages reports 3, or says its count is a lower bound: " + r + "; "
                        + faults.describe());
    }

    /**
     * The server commits the insert and the reply is lost. The retry finds the call's receipt, so the
     * message is stored once and the call reports it, with or without a dedup key (it used to answer in doubt).
     */
    @Test
    void aLostReplyAfterTheInsertCommittedStoresOneMessageAndReportsIt() {
        FaultyDataSource faults = new FaultyDataSource(db);
        Outbox faulty = Baton.builder(faults).dialect(baton.dialect()).build().outbox(table);
        int n = 0;
        for (Message m : List.of(
                Message.of("t", "plain"), Message.of("t", "deduplicated").dedupKey("d-1"))) {
            faults.arm(Fault.whenSql(FaultPoint.LOST_REPLY, sql -> sql.startsWith("INSERT")));
            EnqueueResult r;
            try {
                r = faulty.enqueue(m);
            } finally {
                faults.disarm();
            }
            assertTrue(faults.fired().isPresent(), "the fault fired: " + faults.describe());
            n++;
            assertEquals(n, count(""), "one row per enqueue: " + faults.describe());
            EnqueueResult.Enqueued e = assertInstanceOf(EnqueueResult.Enqueued.class, r, faults.describe());
            assertEquals(1, count("id = " + e.id() + " AND topic = 't'"), "the id reported is the row stored");
        }
    }

    /**
     * The server commits a transition and its message and the commit's reply is lost. The retry
     * reads the call's receipt back and answers {@code Applied} (it used to answer {@code InDoubt}), with one message.
     * A reply lost before the commit (the server rolls the pair back) leaves neither, and the retry runs the pair
     * again: {@code Applied}, one message.
     */
    @Test
    void aLostCommitReplyOfTransitionAndEnqueueIsReadBackAsApplied() {
        db.execute("INSERT INTO " + orders + " (id, payment_status) VALUES (1, 0), (2, 0)");
        FaultyDataSource faults = new FaultyDataSource(db);
        Baton faultyBaton = Baton.builder(faults).dialect(baton.dialect()).build();
        Outbox faulty = faultyBaton.outbox(table);
        StateTable<Payment> payments = faultyBaton.table(orders).state("payment_status", Payment.MACHINE);
        Map<Long, Fault> cases = new TreeMap<>(Map.of(
                1L, Fault.on(FaultPoint.LOST_REPLY, StepKind.COMMIT, 1),
                2L, Fault.whenSql(FaultPoint.LOST_REPLY, sql -> sql.startsWith("INSERT"))));
        for (Map.Entry<Long, Fault> c : cases.entrySet()) {
            long id = c.getKey();
            faults.arm(c.getValue());
            TransitionResult<Payment> r;
            try {
                r = faulty.transitionAndEnqueue(
                        payments.transition(id, Payment.PENDING, Payment.PAID), Message.of("order.paid", "" + id));
            } finally {
                faults.disarm();
            }
            assertTrue(faults.fired().isPresent(), "the fault fired: " + faults.describe());
            assertEquals(new TransitionResult.Applied<>(id, Payment.PAID), r, faults.describe());
            assertEquals((int) id, count(""), "one message per call: " + faults.describe());
            assertEquals(1, countOrders("id = " + id + " AND payment_status = " + Payment.PAID.code()));
        }
    }

    private int countOrders(String where) {
        try (Connection c = db.connect();
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT COUNT(*) FROM " + orders + " WHERE " + where)) {
            rs.next();
            return rs.getInt(1);
        } catch (SQLException e) {
            throw new AssertionError(e);
        }
    }

    @Test
    void badInputIsRefusedBeforeAnySql() {
        Outbox small = baton.outbox(table, Outbox.Options.defaults().maxPayloadBytes(16));
        assertThrows(PayloadTooLargeException.class, () -> small.enqueue(Message.of("t", new byte[17])));
        assertThrows(IllegalKeyException.class, () -> outbox.enqueue(Message.of("", "x")));
        assertThrows(IllegalKeyException.class, () -> outbox.enqueue(Message.of(" ", "x")));
        assertThrows(IllegalKeyException.class, () -> outbox.enqueue(Message.of("x".repeat(256), "x")));
        assertThrows(
                IllegalKeyException.class,
                () -> outbox.enqueue(Message.of("t", "x").key("")));
        assertThrows(
                IllegalKeyException.class,
                () -> outbox.enqueue(Message.of("t", "x").dedupKey("k".repeat(300))));
        assertThrows(NullPointerException.class, () -> outbox.enqueue((Message) null));
        assertThrows(NullPointerException.class, () -> Message.of(null, "x"));
        assertThrows(dev.baton.ConfigurationException.class, () -> Outbox.Options.defaults()
                .maxPayloadBytes(0));
        assertThrows(dev.baton.InvalidIdentifierException.class, () -> baton.outbox("outbox; DROP TABLE x"));
        assertEquals(0, count(""), "nothing written");
    }
}
