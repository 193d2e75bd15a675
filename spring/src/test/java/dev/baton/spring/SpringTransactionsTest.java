package dev.baton.spring;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.baton.BeginResult;
import dev.baton.BulkResult;
import dev.baton.ClaimQueue;
import dev.baton.ClaimedRow;
import dev.baton.EnqueueResult;
import dev.baton.LeaseResult;
import dev.baton.ReadOnlyTransactionException;
import dev.baton.ReceiveResult;
import dev.baton.StateMachine;
import dev.baton.TransitionResult;
import dev.baton.spring.Payments.Pay;
import dev.baton.testservers.TestServer;
import java.util.List;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.springframework.jdbc.datasource.DataSourceUtils;
import org.springframework.transaction.NestedTransactionNotSupportedException;
import org.springframework.transaction.TransactionDefinition;
import org.springframework.transaction.support.AbstractPlatformTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * Baton built with {@code Baton.builder(dataSource)} in a {@code @Bean} method, called inside {@code @Transactional}
 * methods and {@code TransactionTemplate} callbacks of a plain Spring application (HikariCP,
 * {@code DataSourceTransactionManager}, or {@code JpaTransactionManager} over Hibernate): every operation commits and rolls back with the caller's transaction, takes
 * no connection of its own (the transaction manager's is the only one borrowed), and its listener calls wait for the
 * commit.
 */
@ParameterizedClass(name = "{0}, {1}")
@MethodSource("serversAndTransactionManagers")
class SpringTransactionsTest {
    @Parameter(0)
    TestServer server;

    @Parameter(1)
    String transactionManager;

    /** Each server under each transaction manager: JDBC's, and JPA's over Hibernate (Spring Data JPA applications). */
    static List<Arguments> serversAndTransactionManagers() {
        List<Arguments> out = new java.util.ArrayList<>();
        for (TestServer s : List.of(
                TestServer.POSTGRES_LOCAL,
                TestServer.POSTGRES_EMBEDDED,
                TestServer.MARIADB_LOCAL,
                TestServer.MARIADB_EMBEDDED)) {
            out.add(Arguments.of(s, "DataSourceTransactionManager"));
            out.add(Arguments.of(s, "JpaTransactionManager"));
        }
        return out;
    }

    private SpringFixture f;

    @BeforeEach
    void setUp() {
        f = new SpringFixture(server.get(), transactionManager.equals("JpaTransactionManager"));
    }

    @AfterEach
    void tearDown() {
        if (f != null) {
            f.close();
        }
    }

    /** Runs {@code call} and checks that it borrowed exactly one connection: the transaction manager's. */
    private <T> T inOneConnection(Supplier<T> call) {
        int before = f.dataSource.borrowed();
        try {
            return call.get();
        } finally {
            assertEquals(1, f.dataSource.borrowed() - before, "connections borrowed by the transaction");
        }
    }

    private void failsInOneConnection(Runnable call) {
        inOneConnection(() -> assertThrows(IllegalStateException.class, call::run));
    }

    @Test
    void transitionCommitsWithTheCallersTransaction() {
        f.orders(1);
        TransitionResult<Pay> r = inOneConnection(() -> f.payments.pay(1, false));
        assertInstanceOf(TransitionResult.Applied.class, r);
        assertEquals("PAID", f.status(1));
        assertEquals(1, f.count(f.names.ledger()));
    }

    @Test
    void transitionRollsBackWithTheCallersTransaction() {
        f.orders(1);
        failsInOneConnection(() -> f.payments.pay(1, true));
        assertEquals("PENDING", f.status(1));
        assertEquals(0, f.count(f.names.ledger()));
    }

    @Test
    void duplicateCallbackInsideTheTransactionIsAlreadyInTarget() {
        f.orders(1);
        List<TransitionResult<Pay>> results = inOneConnection(() -> f.tx.execute(s -> List.of(
                f.payments.orders().transition(1, Pay.PENDING, Pay.PAID).apply(),
                f.payments.orders().transition(1, Pay.PENDING, Pay.PAID).apply())));
        assertInstanceOf(TransitionResult.Applied.class, results.get(0));
        assertInstanceOf(TransitionResult.AlreadyInTarget.class, results.get(1));
        // and a second callback in a later transaction
        assertInstanceOf(TransitionResult.AlreadyInTarget.class, inOneConnection(() -> f.payments.pay(1, false)));
        assertEquals("PAID", f.status(1));
        assertEquals(0, f.count(f.names.ledger()), "the duplicate callback wrote its ledger row");
    }

    @Test
    void bulkTransitionCommitsAndRollsBackWithTheCallersTransaction() {
        f.orders(1, 2, 3);
        failsInOneConnection(() -> f.payments.expireAll(true));
        assertEquals(List.of("PENDING", "PENDING", "PENDING"), List.of(f.status(1), f.status(2), f.status(3)));
        BulkResult r = inOneConnection(() -> f.payments.expireAll(false));
        assertEquals(3, r.rows());
        assertEquals(List.of("EXPIRED", "EXPIRED", "EXPIRED"), List.of(f.status(1), f.status(2), f.status(3)));
    }

    @Test
    void outboxEnqueueCommitsAndRollsBackWithTheCallersTransaction() {
        failsInOneConnection(() -> f.payments.announce(7, true));
        assertEquals(0, f.count(f.names.outbox()));
        assertEquals(0, f.count(f.names.ledger()));
        assertInstanceOf(EnqueueResult.Enqueued.class, inOneConnection(() -> f.payments.announce(7, false)));
        assertEquals(1, f.count(f.names.outbox()));
        assertEquals(1, f.count(f.names.ledger()));
    }

    @Test
    void transitionAndEnqueueCommitsAndRollsBackWithTheCallersTransaction() {
        f.orders(1);
        failsInOneConnection(() -> f.payments.payAndAnnounce(1, true));
        assertEquals("PENDING", f.status(1));
        assertEquals(0, f.count(f.names.outbox()));
        assertInstanceOf(TransitionResult.Applied.class, inOneConnection(() -> f.payments.payAndAnnounce(1, false)));
        assertEquals("PAID", f.status(1));
        assertEquals(1, f.count(f.names.outbox()));
        // the duplicate callback announces nothing
        assertInstanceOf(
                TransitionResult.AlreadyInTarget.class, inOneConnection(() -> f.payments.payAndAnnounce(1, false)));
        assertEquals(1, f.count(f.names.outbox()));
    }

    @Test
    void idempotencyKeyBeginCommitsAndRollsBackWithTheCallersTransaction() {
        failsInOneConnection(() -> f.payments.begin("k-1", true));
        assertEquals(0, f.count(f.names.keys()));
        assertInstanceOf(BeginResult.Started.class, inOneConnection(() -> f.payments.begin("k-1", false)));
        assertEquals(1, f.count(f.names.keys()));
        // committed: the next begin of the key finds it in progress
        assertInstanceOf(BeginResult.InProgress.class, f.payments.keys().begin("customer-1", "k-1", "POST /payments"));
    }

    @Test
    void inboxReceiveCommitsAndRollsBackWithTheCallersTransaction() {
        failsInOneConnection(() -> f.payments.receive("m-1", true));
        assertEquals(0, f.count(f.names.inbox()));
        assertInstanceOf(ReceiveResult.FirstDelivery.class, inOneConnection(() -> f.payments.receive("m-1", false)));
        assertInstanceOf(ReceiveResult.Duplicate.class, inOneConnection(() -> f.payments.receive("m-1", false)));
        assertEquals(1, f.count(f.names.inbox()));
    }

    @Test
    void listenersFireOnlyAfterCommit() {
        f.orders(1, 2);
        List<String> seenInside = inOneConnection(() -> f.tx.execute(s -> {
            f.payments.orders().transition(1, Pay.PENDING, Pay.PAID).apply();
            return List.copyOf(f.recorder.calls);
        }));
        assertEquals(List.of(), seenInside, "listener calls made before the commit");
        assertEquals(List.of("transition Applied"), f.recorder.calls);
        failsInOneConnection(() -> f.payments.pay(2, true));
        assertEquals(List.of("transition Applied"), f.recorder.calls, "a rolled-back transition was reported");
        // outside a transaction, at once
        f.payments.orders().transition(2, Pay.PENDING, Pay.EXPIRED).apply();
        assertEquals(List.of("transition Applied", "transition Applied"), f.recorder.calls);
    }

    enum Job {
        READY,
        RUNNING,
        DONE,
        DEAD
    }

    static final StateMachine<Job> JOBS = StateMachine.of(Job.class)
            .name("job")
            .initial(Job.READY)
            .allow(Job.READY, Job.RUNNING)
            .allow(Job.RUNNING, Job.READY, Job.DONE, Job.DEAD)
            .terminal(Job.DONE, Job.DEAD)
            .build();

    private ClaimQueue<Job> jobs(long... ids) {
        ClaimQueue<Job> q = f.baton
                .<Job>queue("jobs")
                .table(f.names.jobs())
                .id("id")
                .claim("state", JOBS, Job.READY, Job.RUNNING)
                .deadState(Job.DEAD)
                .build();
        q.createTableSql().forEach(f.jdbc::execute);
        for (long id : ids) {
            f.jdbc.update("INSERT INTO " + f.names.jobs() + " (id, state) VALUES (?, 'READY')", id);
        }
        return q;
    }

    private String jobState(long id) {
        return f.jdbc.queryForObject("SELECT state FROM " + f.names.jobs() + " WHERE id = ?", String.class, id);
    }

    @Test
    void claimAndCompleteJoinTheCallersTransaction() {
        ClaimQueue<Job> q = jobs(1);
        assertThrows(
                IllegalStateException.class,
                () -> inOneConnection(() -> f.tx.execute(s -> {
                    List<ClaimedRow<Job>> rows = q.claim(1);
                    assertEquals(1, rows.size());
                    assertInstanceOf(LeaseResult.Done.class, q.complete(rows.get(0), Job.DONE));
                    f.payments.ledger(1); // the handler's own write, atomic with the fenced completion
                    throw new IllegalStateException("the handler fails after its writes");
                })));
        assertEquals("READY", jobState(1), "a rolled-back claim and completion");
        assertEquals(0, f.count(f.names.ledger()));
        assertTrue(f.recorder.calls.isEmpty(), "listener calls of a rolled-back claim");
        LeaseResult<Job> done = inOneConnection(() -> f.tx.execute(s -> {
            ClaimedRow<Job> row = q.claim(1).get(0);
            f.payments.ledger(1);
            return q.complete(row, Job.DONE);
        }));
        assertInstanceOf(LeaseResult.Done.class, done);
        assertEquals("DONE", jobState(1));
        assertEquals(1, f.count(f.names.ledger()));
        assertEquals(List.of("claim 1"), f.recorder.calls);
    }

    @Test
    void claimAndCompleteOnTheCallersConnection() {
        ClaimQueue<Job> q = jobs(1, 2);
        // the explicit forms, on the connection Spring's transaction holds
        LeaseResult<Job> done = inOneConnection(() -> f.tx.execute(s -> {
            var c = DataSourceUtils.getConnection(f.dataSource);
            try {
                List<ClaimedRow<Job>> rows = q.claim(c, 2);
                assertEquals(2, rows.size());
                q.apply(c, rows.get(1), dev.baton.Outcome.release());
                return q.complete(c, rows.get(0), Job.DONE);
            } finally {
                DataSourceUtils.releaseConnection(c, f.dataSource);
            }
        }));
        assertInstanceOf(LeaseResult.Done.class, done);
        assertEquals(List.of("DONE", "READY"), List.of(jobState(1), jobState(2)));
        assertEquals(List.of(), f.recorder.calls, "caller forms fire no listeners");
    }

    private AbstractPlatformTransactionManager transactionManager() {
        return f.context.getBean(AbstractPlatformTransactionManager.class);
    }

    /**
     * A manager set to {@code SYNCHRONIZATION_NEVER} binds its connection (and {@code
     * JdbcTemplate} joins it); Baton joined nothing and committed its write on a connection of its own, which survived
     * the rollback of the transaction it was called in.
     */
    @Test
    void aTransactionWithoutSynchronizationIsJoined() {
        f.orders(1);
        AbstractPlatformTransactionManager tm = transactionManager();
        tm.setTransactionSynchronization(AbstractPlatformTransactionManager.SYNCHRONIZATION_NEVER);
        TransactionTemplate never = new TransactionTemplate(tm);
        TransitionResult<Pay> inside = inOneConnection(() -> never.execute(s -> {
            f.payments.ledger(1);
            TransitionResult<Pay> r =
                    f.payments.orders().transition(1, Pay.PENDING, Pay.PAID).apply();
            s.setRollbackOnly();
            return r;
        }));
        assertInstanceOf(TransitionResult.Applied.class, inside);
        assertEquals(0, f.count(f.names.ledger()), "the transaction's own write");
        assertEquals("PENDING", f.status(1), "Baton's transition outlived the rollback of its transaction");
        assertInstanceOf(
                TransitionResult.Applied.class,
                inOneConnection(() -> never.execute(s ->
                        f.payments.orders().transition(1, Pay.PENDING, Pay.PAID).apply())));
        assertEquals("PAID", f.status(1));
    }

    /**
     * Listener calls made inside a {@code PROPAGATION_NESTED} scope that rolled back to its
     * savepoint (its writes undone) never fire, whether the scope made the transaction's first Baton call or a later
     * one; calls of a nested scope that completed fire after the commit.
     */
    @Test
    void listenersOfANestedScopeRolledBackToItsSavepointNeverFire() {
        f.orders(1, 2, 3, 4);
        AbstractPlatformTransactionManager tm = transactionManager();
        tm.setNestedTransactionAllowed(true);
        TransactionTemplate nested = new TransactionTemplate(tm);
        nested.setPropagationBehavior(TransactionDefinition.PROPAGATION_NESTED);
        if (transactionManager.equals("JpaTransactionManager")) {
            // Hibernate's JPA dialect has no savepoints: a nested scope is refused, so no listener call can outlive one
            assertThrows(
                    NestedTransactionNotSupportedException.class,
                    () -> f.tx.executeWithoutResult(outer -> nested.executeWithoutResult(s -> {})));
            return;
        }
        f.tx.executeWithoutResult(outer -> {
            nested.executeWithoutResult(s -> {
                assertTrue(f.payments
                        .orders()
                        .transition(1, Pay.PENDING, Pay.PAID)
                        .apply()
                        .applied());
                s.setRollbackOnly();
            });
            assertTrue(f.payments
                    .orders()
                    .transition(2, Pay.PENDING, Pay.PAID)
                    .apply()
                    .applied());
            nested.executeWithoutResult(s -> assertTrue(f.payments
                    .orders()
                    .transition(3, Pay.PENDING, Pay.PAID)
                    .apply()
                    .applied()));
            nested.executeWithoutResult(s -> {
                assertTrue(f.payments
                        .orders()
                        .transition(4, Pay.PENDING, Pay.PAID)
                        .apply()
                        .applied());
                s.setRollbackOnly();
            });
        });
        assertEquals(
                List.of("PENDING", "PAID", "PAID", "PENDING"),
                List.of(f.status(1), f.status(2), f.status(3), f.status(4)));
        assertEquals(
                List.of("transition Applied", "transition Applied"),
                f.recorder.calls,
                "listener calls for the transitions of orders 2 and 3 only");
    }

    /**
     * In a read-only transaction Baton's writes are refused with a typed error before any
     * SQL (they failed at the database, or ran), and its reads join it.
     */
    @Test
    void writesInAReadOnlyTransactionAreRefusedBeforeSql() {
        f.orders(1);
        TransactionTemplate readOnly = new TransactionTemplate(transactionManager());
        readOnly.setReadOnly(true);
        inOneConnection(() -> readOnly.execute(s -> {
            assertThrows(ReadOnlyTransactionException.class, () -> f.payments
                    .orders()
                    .transition(1, Pay.PENDING, Pay.PAID)
                    .apply());
            assertThrows(
                    ReadOnlyTransactionException.class,
                    () -> f.payments.orders().bulk(Pay.PENDING, Pay.EXPIRED).apply());
            assertThrows(ReadOnlyTransactionException.class, () -> f.payments.announceOnly(1));
            assertEquals(java.util.Optional.of(Pay.PENDING), f.payments.orders().currentState(1));
            return null;
        }));
        assertEquals("PENDING", f.status(1));
        assertEquals(0, f.count(f.names.outbox()));
        assertEquals(List.of(), f.recorder.calls);
    }
}
