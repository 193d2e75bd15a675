package dev.baton.spring;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.baton.BatonException;
import dev.baton.ClaimQueue;
import dev.baton.ClaimedRow;
import dev.baton.DataAccessException;
import dev.baton.EnqueueResult;
import dev.baton.LeaseResult;
import dev.baton.StateMachine;
import dev.baton.TransitionResult;
import dev.baton.spring.Payments.Pay;
import dev.baton.testservers.TestServer;
import java.sql.SQLException;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.EnumSource;
import org.springframework.core.retry.RetryPolicy;
import org.springframework.core.retry.RetryTemplate;

/**
 * {@code Baton.isTransient} and {@code Baton.inTransaction} (the retry of a whole caller transaction on a plain data
 * source), and Spring's own {@code RetryTemplate} around a {@code TransactionTemplate} with {@code baton::isTransient}
 * as its predicate. The transient failure is injected: a driver exception with the deadlock codes of the server
 * (PostgreSQL 40P01, MariaDB 1213), thrown after the transaction's writes.
 */
@ParameterizedClass(name = "{0}")
@EnumSource(
        value = TestServer.class,
        names = {"POSTGRES_LOCAL", "POSTGRES_EMBEDDED", "MARIADB_LOCAL", "MARIADB_EMBEDDED"})
class TransientRetryTest {
    @Parameter
    TestServer server;

    private SpringFixture f;

    @BeforeEach
    void setUp() {
        f = new SpringFixture(server.get());
        f.orders(1);
    }

    @AfterEach
    void tearDown() {
        if (f != null) {
            f.close();
        }
    }

    private static SQLException deadlock() {
        return new SQLException("deadlock detected (injected)", "40P01", 1213);
    }

    @Test
    void isTransientReadsTheDialectsClassificationThroughCauses() {
        assertTrue(f.baton.isTransient(deadlock()));
        assertTrue(f.baton.isTransient(new DataAccessException("transition", deadlock())));
        assertTrue(f.baton.isTransient(new RuntimeException(new DataAccessException("transition", deadlock()))));
        assertFalse(f.baton.isTransient(new SQLException("syntax error", "42601", 1064)));
        assertFalse(f.baton.isTransient(new IllegalStateException("not a database failure")));
        assertFalse(f.baton.isTransient(null));
    }

    @Test
    void inTransactionJoinsOperationsAndRetriesTheWholeTransaction() {
        AtomicInteger attempts = new AtomicInteger();
        f.baton.inTransaction(c -> null); // the first call looks for the receipt table once (none here)
        int before = f.dataSource.borrowed();
        TransitionResult<Pay> r = f.baton.inTransaction(c -> {
            f.payments.ledger(1); // JdbcTemplate: a connection of its own, outside Baton's transaction
            TransitionResult<Pay> t =
                    f.payments.orders().transition(1, Pay.PENDING, Pay.PAID).apply();
            try (var s = c.prepareStatement("INSERT INTO " + f.names.ledger() + " (order_id) VALUES (2)")) {
                s.executeUpdate();
            }
            assertInstanceOf(EnqueueResult.Enqueued.class, f.payments.announceOnly(1));
            assertEquals(List.of(), f.recorder.calls, "listener calls before the commit");
            if (attempts.incrementAndGet() == 1) {
                throw deadlock();
            }
            return t;
        });
        // Baton's connection per attempt, and JdbcTemplate's per ledger row
        assertEquals(4, f.dataSource.borrowed() - before);
        assertInstanceOf(TransitionResult.Applied.class, r);
        assertEquals(2, attempts.get());
        assertEquals("PAID", f.status(1));
        assertEquals(1, f.count(f.names.outbox()), "the first attempt's message was rolled back");
        // 2 ledger rows from JdbcTemplate (its own connection each time), 1 from the transaction's connection
        assertEquals(3, f.count(f.names.ledger()));
        assertEquals(List.of("transition Applied"), f.recorder.calls);
    }

    @Test
    void inTransactionRollsBackOnAFailureThatIsNotTransient() {
        assertThrows(
                IllegalStateException.class,
                () -> f.baton.inTransaction(c -> {
                    f.payments.orders().transition(1, Pay.PENDING, Pay.PAID).apply();
                    throw new IllegalStateException("not transient");
                }));
        assertEquals("PENDING", f.status(1));
        assertEquals(List.of(), f.recorder.calls);
    }

    @Test
    void inTransactionInsideASpringTransactionJoinsIt() {
        int before = f.dataSource.borrowed();
        assertThrows(
                IllegalStateException.class,
                () -> f.tx.executeWithoutResult(s -> {
                    f.baton.inTransaction(c -> f.payments
                            .orders()
                            .transition(1, Pay.PENDING, Pay.PAID)
                            .apply());
                    throw new IllegalStateException("the service fails");
                }));
        assertEquals(1, f.dataSource.borrowed() - before);
        assertEquals("PENDING", f.status(1));
    }

    @Test
    void springRetryTemplateRetriesTheSpringTransactionOnTransientFailures() {
        // tag::spring-retry[]
        // retries on a deadlock, serialization failure, lock timeout or lost connection
        RetryPolicy policy = RetryPolicy.builder()
                .predicate(f.baton::isTransient)
                .maxRetries(4)
                .build();
        RetryTemplate retry = new RetryTemplate(policy);
        // end::spring-retry[]
        AtomicInteger attempts = new AtomicInteger();
        TransitionResult<Pay> r = retry.invoke(() -> f.tx.execute(s -> {
            f.payments.ledger(1);
            TransitionResult<Pay> t =
                    f.payments.orders().transition(1, Pay.PENDING, Pay.PAID).apply();
            if (attempts.incrementAndGet() == 1) {
                throw new DataAccessException("injected", deadlock());
            }
            return t;
        }));
        assertInstanceOf(TransitionResult.Applied.class, r);
        assertEquals(2, attempts.get());
        assertEquals("PAID", f.status(1));
        assertEquals(1, f.count(f.names.ledger()));
        assertEquals(List.of("transition Applied"), f.recorder.calls);
    }

    enum Send {
        READY,
        RUNNING,
        SENDING,
        UNKNOWN,
        DONE,
        DEAD
    }

    @Test
    void markSendingRefusesToRunInsideAHostTransaction() {
        StateMachine<Send> machine = StateMachine.of(Send.class)
                .name("send")
                .initial(Send.READY)
                .allow(Send.READY, Send.RUNNING)
                .allow(Send.RUNNING, Send.READY, Send.DONE, Send.DEAD, Send.SENDING)
                .allow(Send.SENDING, Send.DONE, Send.UNKNOWN, Send.DEAD, Send.READY)
                .allow(Send.UNKNOWN, Send.DONE, Send.READY, Send.DEAD)
                .terminal(Send.DONE, Send.DEAD)
                .build();
        ClaimQueue<Send> q = f.baton
                .<Send>queue("sends")
                .table(f.names.jobs())
                .id("id")
                .claim("state", machine, Send.READY, Send.RUNNING)
                .deadState(Send.DEAD)
                .nonIdempotentSink(Send.SENDING, Send.UNKNOWN)
                .build();
        q.createTableSql().forEach(f.jdbc::execute);
        f.jdbc.update("INSERT INTO " + f.names.jobs() + " (id, state) VALUES (1, 'READY')");
        ClaimedRow<Send> row = q.claim(1).get(0);
        BatonException e = assertThrows(BatonException.class, () -> f.tx.executeWithoutResult(s -> q.markSending(row)));
        assertTrue(e.getMessage().contains("must commit before the external call"), e.getMessage());
        assertEquals(new LeaseResult.Done<>(row.id(), Send.SENDING), q.markSending(row));
    }
}
