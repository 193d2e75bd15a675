package dev.baton.spring;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.baton.Baton;
import dev.baton.DataAccessException;
import dev.baton.RetryPolicy;
import dev.baton.StateTable;
import dev.baton.TransitionResult;
import dev.baton.spi.HostTransactions;
import dev.baton.spring.Payments.Pay;
import dev.baton.testservers.TestServer;
import java.sql.Connection;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.EnumSource;
import org.springframework.jdbc.datasource.DataSourceUtils;
import org.springframework.jdbc.datasource.TransactionAwareDataSourceProxy;

/**
 * Three experiments of joining host transactions, before (Baton told to join nothing: {@link HostTransactions#NONE}, as every
 * {@code Baton} was before {@code baton-spring}) and after (the same code, {@code baton-spring} found by
 * {@code ServiceLoader}). In each, a Spring transaction writes a ledger row and Baton applies a transition.
 */
@ParameterizedClass(name = "{0}")
@EnumSource(
        value = TestServer.class,
        names = {"POSTGRES_LOCAL", "POSTGRES_EMBEDDED", "MARIADB_LOCAL", "MARIADB_EMBEDDED"})
class JoiningExperimentsTest {
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

    private StateTable<Pay> orders(Baton baton) {
        return baton.table(f.names.orders()).id("id").state("status", Payments.MACHINE);
    }

    private static Baton joiningNothing(DataSource ds) {
        return Baton.builder(ds)
                .hostTransactions(HostTransactions.NONE)
                .transientRetry(RetryPolicy.none())
                .build();
    }

    /** Writes the ledger row, applies the transition with {@code orders}, then fails: Spring rolls back. */
    private void ledgerTransitionAndFail(StateTable<Pay> orders) {
        assertThrows(
                RuntimeException.class,
                () -> f.tx.executeWithoutResult(s -> {
                    f.payments.ledger(1);
                    assertInstanceOf(
                            TransitionResult.Applied.class,
                            orders.transition(1, Pay.PENDING, Pay.PAID).apply());
                    throw new IllegalStateException("the service fails after its writes");
                }));
    }

    // Experiment A: Baton over Spring's TransactionAwareDataSourceProxy.

    @Test
    void beforeTransactionAwareProxyCommittedTheCallersTransactionHalfway() {
        ledgerTransitionAndFail(orders(joiningNothing(new TransactionAwareDataSourceProxy(f.dataSource))));
        // Baton switched autocommit on, on the connection of Spring's transaction: both writes survived the rollback
        assertEquals("PAID", f.status(1));
        assertEquals(1, f.count(f.names.ledger()));
    }

    @Test
    void afterTransactionAwareProxyIsUnwrappedAndJoined() {
        Baton baton = Baton.using(new TransactionAwareDataSourceProxy(f.dataSource));
        int before = f.dataSource.borrowed();
        ledgerTransitionAndFail(orders(baton));
        assertEquals(1, f.dataSource.borrowed() - before);
        assertEquals("PENDING", f.status(1));
        assertEquals(0, f.count(f.names.ledger()));
    }

    // Experiment B: Baton over the plain pool, the caller's transaction holding the row's lock.

    private TransitionResult<Pay> lockThenTransition(StateTable<Pay> orders) {
        return f.tx.execute(s -> {
            f.jdbc.update("UPDATE " + f.names.orders() + " SET status = status WHERE id = 1"); // the caller's lock
            f.payments.ledger(1);
            return orders.transition(1, Pay.PENDING, Pay.PAID).apply();
        });
    }

    @Test
    void beforePlainPoolWaitedOnTheCallersOwnLock() {
        Baton baton = joiningNothing(f.dataSource);
        int before = f.dataSource.borrowed();
        // without the pool's 2 s lock timeout (PostgreSQL's default lock_timeout is 0) this would wait forever
        DataAccessException e = assertThrows(DataAccessException.class, () -> lockThenTransition(orders(baton)));
        assertTrue(baton.isTransient(e), "a lock timeout is transient: " + e);
        assertEquals(2, f.dataSource.borrowed() - before, "Baton took a second connection");
        assertEquals("PENDING", f.status(1));
    }

    @Test
    void afterPlainPoolJoinsTheCallersTransaction() {
        int before = f.dataSource.borrowed();
        assertInstanceOf(TransitionResult.Applied.class, lockThenTransition(f.payments.orders()));
        assertEquals(1, f.dataSource.borrowed() - before);
        assertEquals("PAID", f.status(1));
        assertEquals(1, f.count(f.names.ledger()));
    }

    // Experiment C: the explicit form on DataSourceUtils.getConnection, which worked before and still does.

    @Test
    void explicitConnectionFormJoinsBeforeAndAfter() {
        for (Baton baton : new Baton[] {joiningNothing(f.dataSource), f.baton}) {
            assertThrows(
                    RuntimeException.class,
                    () -> f.tx.executeWithoutResult(s -> {
                        f.payments.ledger(1);
                        Connection c = DataSourceUtils.getConnection(f.dataSource);
                        try {
                            orders(baton).transition(1, Pay.PENDING, Pay.PAID).apply(c);
                        } finally {
                            DataSourceUtils.releaseConnection(c, f.dataSource);
                        }
                        throw new IllegalStateException("the service fails after its writes");
                    }));
            assertEquals("PENDING", f.status(1));
            assertEquals(0, f.count(f.names.ledger()));
        }
    }
}
