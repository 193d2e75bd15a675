package dev.baton.jooq;

import static org.junit.jupiter.api.Assertions.fail;

import dev.baton.Baton;
import dev.baton.Message;
import dev.baton.Outbox;
import dev.baton.StateMachine;
import dev.baton.StateTable;
import dev.baton.TransactionReceipts;
import dev.baton.TransitionResult;
import dev.baton.testkit.faults.Fault;
import dev.baton.testkit.faults.FaultPoint;
import dev.baton.testkit.faults.FaultyDataSource;
import dev.baton.testkit.faults.Step;
import dev.baton.testservers.DatabaseKind;
import dev.baton.testservers.TestDatabase;
import dev.baton.testservers.TestDatabases;
import dev.baton.testservers.TestServer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;
import org.jooq.DSLContext;
import org.jooq.SQLDialect;
import org.jooq.impl.DSL;
import org.jooq.impl.DefaultConfiguration;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A jOOQ {@code transactionResult} retried whole on {@code baton::isTransient}, recording the call's receipt first
 * (jooq.md's recipe), under every {@link FaultPoint} at every JDBC step of the work (a transition, a jOOQ insert, an
 * outbox message). After each case the order is paid once, with one ledger line and one message, and the call was
 * answered.
 */
@ParameterizedClass(name = "{0}")
@EnumSource(
        value = TestServer.class,
        names = {"POSTGRES_LOCAL", "MARIADB_LOCAL"})
class JooqCallerTransactionFaultTest {
    enum Pay {
        PENDING,
        PAID
    }

    static final StateMachine<Pay> MACHINE = StateMachine.of(Pay.class)
            .allow(Pay.PENDING, Pay.PAID)
            .terminal(Pay.PAID)
            .build();

    @Parameter
    TestServer server;

    private TestDatabase db;
    private String orders;
    private String ledger;
    private String outboxTable;
    private String receipts;
    private FaultyDataSource faults;
    private Baton baton;
    private StateTable<Pay> payments;
    private Outbox outbox;
    private DSLContext dsl;
    private final AtomicLong nextId = new AtomicLong(1);

    private void setUp() {
        db = server.get();
        orders = TestDatabases.uniqueName("jct_orders");
        ledger = TestDatabases.uniqueName("jct_ledger");
        outboxTable = TestDatabases.uniqueName("jct_obox");
        receipts = TestDatabases.uniqueName("jct_rcpt");
        db.execute(
                "CREATE TABLE " + orders + " (id BIGINT NOT NULL PRIMARY KEY, status VARCHAR(16) NOT NULL)",
                "CREATE TABLE " + ledger + " (order_id BIGINT NOT NULL)");
        Baton real = Baton.using(db.dataSource());
        real.ownTables().createOutboxTable(outboxTable);
        real.ownTables().createReceiptsTable(receipts);
        faults = new FaultyDataSource(db);
        baton = Baton.builder(faults).receiptsTable(receipts).build();
        payments = baton.table(orders).state("status", MACHINE);
        outbox = baton.outbox(outboxTable);
        dsl = DSL.using(new DefaultConfiguration()
                .set(faults)
                .set(db.kind() == DatabaseKind.POSTGRES ? SQLDialect.POSTGRES : SQLDialect.MARIADB)
                .set(JooqTransactions.listener(faults)));
    }

    private void tearDown() {
        for (String t : List.of(orders, ledger, outboxTable, receipts)) {
            db.dropTableIfExists(t);
        }
    }

    /** Runs {@code transaction} again after a transient failure, up to 5 times (the examples' {@code Retry}). */
    private <T> T retried(Supplier<T> transaction) {
        for (int attempt = 1; ; attempt++) {
            try {
                return transaction.get();
            } catch (RuntimeException e) {
                if (!baton.isTransient(e) || attempt == 5) {
                    throw e;
                }
            }
        }
    }

    private String pay(long id) {
        long receipt = TransactionReceipts.newReceipt(); // once per call, outside the retries
        return retried(() -> dsl.transactionResult(cfg -> {
            if (!baton.receipts().record(receipt)) {
                return "already done"; // an earlier attempt committed; its reply was lost
            }
            TransitionResult<Pay> t =
                    payments.transition(id, Pay.PENDING, Pay.PAID).apply();
            cfg.dsl().execute("INSERT INTO " + ledger + " (order_id) VALUES (?)", id);
            if (t.applied()) {
                outbox.enqueue(Message.of("payment.paid." + id, Long.toString(id)));
            }
            return "done";
        }));
    }

    private long newOrder() {
        long id = nextId.getAndIncrement();
        db.execute("INSERT INTO " + orders + " (id, status) VALUES (" + id + ", 'PENDING')");
        return id;
    }

    @TestFactory
    List<DynamicTest> theRecipeUnderEveryFault() {
        setUp();
        pay(newOrder()); // the receipt table's first look and purge, before the dry run
        long dry = newOrder();
        faults.arm(null);
        try {
            pay(dry);
        } finally {
            faults.disarm();
        }
        List<Step> steps = new ArrayList<>();
        for (Step s : faults.steps()) {
            if (s.kind().faultable()) {
                steps.add(s);
            }
        }
        List<DynamicTest> tests = new ArrayList<>();
        for (FaultPoint point : FaultPoint.values()) {
            for (Step s : steps) {
                Fault fault = Fault.atStep(point, s.index());
                tests.add(DynamicTest.dynamicTest(
                        point + " × " + s.index() + " (" + s.kind() + ")", () -> runCase(fault)));
            }
        }
        tests.add(DynamicTest.dynamicTest("drop the tables", this::tearDown));
        return tests;
    }

    private void runCase(Fault fault) {
        long id = newOrder();
        String answer = null;
        RuntimeException thrown = null;
        faults.arm(fault);
        try {
            answer = pay(id);
        } catch (RuntimeException e) {
            thrown = e;
        } finally {
            faults.disarm();
        }
        String story =
                fault + ", fired at " + faults.fired().map(Step::toString).orElse("nothing") + "; answer " + answer
                        + ", thrown " + thrown + faults.describe();
        if (thrown != null) {
            throw new AssertionError("a single fault must be retried to an answer; " + story, thrown);
        }
        DSLContext plain = DSL.using(db.dataSource(), dsl.dialect());
        int lines = plain.fetchCount(DSL.table(ledger), DSL.field("order_id").eq(id));
        int messages =
                plain.fetchCount(DSL.table(outboxTable), DSL.field("topic").eq("payment.paid." + id));
        Object state = plain.fetchValue("SELECT status FROM " + orders + " WHERE id = ?", id);
        if (lines != 1 || messages != 1 || !"PAID".equals(state)) {
            fail("once: " + lines + " ledger line(s), " + messages + " message(s), state " + state + "; " + story);
        }
    }
}
