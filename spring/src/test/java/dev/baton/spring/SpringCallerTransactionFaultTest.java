package dev.baton.spring;

import static org.junit.jupiter.api.Assertions.assertEquals;
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
import dev.baton.testservers.TestDatabase;
import dev.baton.testservers.TestDatabases;
import dev.baton.testservers.TestServer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.springframework.core.retry.RetryPolicy;
import org.springframework.core.retry.RetryTemplate;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.orm.jpa.JpaTransactionManager;
import org.springframework.orm.jpa.LocalContainerEntityManagerFactoryBean;
import org.springframework.orm.jpa.vendor.HibernateJpaVendorAdapter;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * A Spring transaction (DataSourceTransactionManager, or JpaTransactionManager over Hibernate; TransactionTemplate) retried by Spring's RetryTemplate on
 * {@code baton::isTransient}, as spring.md's recipe has it, with the call's receipt recorded first in each attempt:
 * every {@link FaultPoint} at every JDBC step of the work (a transition, a JdbcTemplate insert, an outbox message).
 * After each case the order is paid once, with one ledger line and one message, and the call was answered.
 */
@ParameterizedClass(name = "{0} {1}")
@MethodSource("serversAndManagers")
class SpringCallerTransactionFaultTest {
    /** Which transaction manager runs the transactions. */
    enum Manager {
        JDBC,
        JPA
    }

    static Stream<Arguments> serversAndManagers() {
        return Stream.of(TestServer.POSTGRES_LOCAL, TestServer.MARIADB_LOCAL)
                .flatMap(s -> Stream.of(Arguments.of(s, Manager.JDBC), Arguments.of(s, Manager.JPA)));
    }

    enum Pay {
        PENDING,
        PAID
    }

    static final StateMachine<Pay> MACHINE = StateMachine.of(Pay.class)
            .allow(Pay.PENDING, Pay.PAID)
            .terminal(Pay.PAID)
            .build();

    @Parameter(0)
    TestServer server;

    @Parameter(1)
    Manager manager;

    private LocalContainerEntityManagerFactoryBean emf;

    private TestDatabase db;
    private String orders;
    private String ledger;
    private String outboxTable;
    private String receipts;
    private FaultyDataSource faults;
    private Baton baton;
    private StateTable<Pay> payments;
    private Outbox outbox;
    private JdbcTemplate jdbc;
    private TransactionTemplate tx;
    private RetryTemplate retry;
    private final AtomicLong nextId = new AtomicLong(1);
    private int cases;

    private void setUp() {
        db = server.get();
        orders = TestDatabases.uniqueName("sct_orders");
        ledger = TestDatabases.uniqueName("sct_ledger");
        outboxTable = TestDatabases.uniqueName("sct_obox");
        receipts = TestDatabases.uniqueName("sct_rcpt");
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
        jdbc = new JdbcTemplate(faults);
        tx = new TransactionTemplate(manager == Manager.JDBC ? new DataSourceTransactionManager(faults) : jpa());
        // the recipe of spring.md
        retry = new RetryTemplate(RetryPolicy.builder()
                .predicate(baton::isTransient)
                .maxRetries(4)
                .delay(java.time.Duration.ofMillis(10))
                .build());
    }

    /** JPA's transaction manager over Hibernate, exposing its connection to the data source (as Spring Boot does). */
    private PlatformTransactionManager jpa() {
        emf = new LocalContainerEntityManagerFactoryBean();
        emf.setDataSource(faults);
        emf.setJpaVendorAdapter(new HibernateJpaVendorAdapter());
        emf.setPackagesToScan(dev.baton.spring.jpa.JpaOrder.class.getPackageName());
        emf.setJpaPropertyMap(java.util.Map.of("hibernate.hbm2ddl.auto", "none"));
        emf.afterPropertiesSet();
        JpaTransactionManager tm = new JpaTransactionManager(java.util.Objects.requireNonNull(emf.getObject()));
        tm.setDataSource(faults);
        return tm;
    }

    private void tearDown() {
        if (emf != null) {
            emf.destroy();
        }
        System.out.println(
                "[spring caller-transaction faults] " + db.name() + " " + manager + ": " + cases + " case(s)");
        for (String t : List.of(orders, ledger, outboxTable, receipts)) {
            db.dropTableIfExists(t);
        }
    }

    private String pay(long id) {
        long receipt = TransactionReceipts.newReceipt(); // once per call, outside the retries
        return retry.invoke(() -> tx.execute(status -> {
            if (!baton.receipts().record(receipt)) {
                return "already done"; // an earlier attempt committed; its reply was lost
            }
            TransitionResult<Pay> t =
                    payments.transition(id, Pay.PENDING, Pay.PAID).apply();
            jdbc.update("INSERT INTO " + ledger + " (order_id) VALUES (?)", id);
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
        return tests;
    }

    private void runCase(Fault fault) {
        cases++;
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
        int lines = jdbc.queryForObject("SELECT COUNT(*) FROM " + ledger + " WHERE order_id = ?", Integer.class, id);
        int messages = jdbc.queryForObject(
                "SELECT COUNT(*) FROM " + outboxTable + " WHERE topic = ?", Integer.class, "payment.paid." + id);
        String state = jdbc.queryForObject("SELECT status FROM " + orders + " WHERE id = ?", String.class, id);
        if (thrown != null) {
            throw new AssertionError("a single fault must be retried to an answer; " + story, thrown);
        }
        if (lines != 1 || messages != 1 || !"PAID".equals(state)) {
            fail("once: " + lines + " ledger line(s), " + messages + " message(s), state " + state + "; " + story);
        }
        assertEquals(true, answer.equals("done") || answer.equals("already done"), story);
    }
}
