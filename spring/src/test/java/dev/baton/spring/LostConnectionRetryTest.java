package dev.baton.spring;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.baton.TransitionResult;
import dev.baton.spring.Payments.Pay;
import dev.baton.testservers.TestServer;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.springframework.core.retry.RetryPolicy;
import org.springframework.core.retry.RetryTemplate;
import org.springframework.jdbc.datasource.DataSourceUtils;

/**
 * The server session of a {@code @Transactional} method is killed under HikariCP
 * (PostgreSQL {@code pg_terminate_backend}, MariaDB {@code KILL}); Baton's statement fails as a lost connection, then
 * the rollback fails on the connection the pool has closed, and Spring throws the rollback's failure in place of the
 * original ("Connection is closed", no SQLState). {@code baton::isTransient} must still say "lost connection", so that
 * spring.md's retry recipe runs the transaction again.
 */
@ParameterizedClass(name = "{0}, {1}")
@MethodSource("serversAndTransactionManagers")
class LostConnectionRetryTest {
    @Parameter(0)
    TestServer server;

    @Parameter(1)
    String transactionManager;

    static List<Arguments> serversAndTransactionManagers() {
        List<Arguments> out = new ArrayList<>();
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
        f.orders(1);
    }

    @AfterEach
    void tearDown() {
        if (f != null) {
            f.close();
        }
    }

    /** Kills the server session of the transaction's connection, from another connection. */
    private void killTheTransactionsSession() {
        Connection victim = DataSourceUtils.getConnection(f.dataSource);
        try (Connection admin = f.db.connect()) {
            f.db.kind().terminate(victim, admin);
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        } finally {
            DataSourceUtils.releaseConnection(victim, f.dataSource);
        }
    }

    @Test
    void aSessionKilledInsideTheTransactionIsTransient() {
        RuntimeException e =
                assertThrows(RuntimeException.class, () -> f.payments.payAfter(1, this::killTheTransactionsSession));
        assertTrue(f.baton.isTransient(e), "a lost connection, as Spring threw it: " + describe(e));
        assertEquals("PENDING", f.status(1));
        assertEquals(0, f.count(f.names.ledger()));
    }

    @Test
    void theRetryRecipeRunsTheTransactionAgain() {
        AtomicInteger attempts = new AtomicInteger();
        RetryTemplate retry = new RetryTemplate(RetryPolicy.builder()
                .predicate(f.baton::isTransient)
                .maxRetries(3)
                .delay(Duration.ofMillis(50))
                .build());
        TransitionResult<Pay> r = retry.invoke(() -> f.payments.payAfter(1, () -> {
            if (attempts.incrementAndGet() == 1) {
                killTheTransactionsSession();
            }
        }));
        assertInstanceOf(TransitionResult.Applied.class, r);
        assertEquals(2, attempts.get());
        assertEquals("PAID", f.status(1));
        assertEquals(1, f.count(f.names.ledger()));
    }

    private static String describe(Throwable e) {
        StringBuilder sb = new StringBuilder();
        for (Throwable t = e; t != null; t = t.getCause()) {
            sb.append(t.getClass().getName()).append(": ").append(t.getMessage());
            if (t instanceof SQLException s) {
                sb.append(" [SQLState ").append(s.getSQLState()).append(']');
            }
            sb.append(" <- ");
        }
        return sb.toString();
    }
}
