package dev.baton.examples.docs;

import dev.baton.Baton;
import dev.baton.Message;
import dev.baton.Outbox;
import dev.baton.StateTable;
import dev.baton.TransactionReceipts;
import dev.baton.TransitionResult;
import dev.baton.examples.payment.PaymentStatus;
import dev.baton.spi.HostTransactions;
import java.sql.Connection;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicReference;
import javax.sql.DataSource;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.retry.RetryPolicy;
import org.springframework.core.retry.RetryTemplate;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceUtils;
import org.springframework.transaction.annotation.Transactional;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * The snippets of docs/src/spring.md, compiled. What they show is tested in the baton-spring module
 * ({@code SpringTransactionsTest}, {@code JoiningExperimentsTest}, {@code TransientRetryTest}) on PostgreSQL and MariaDB.
 */
final class SpringPageSnippets {
    private SpringPageSnippets() {}

    // tag::spring-bean[]
    @Configuration
    static class BatonConfiguration {
        @Bean
        Baton baton(DataSource dataSource) {
            return Baton.using(dataSource); // joins @Transactional: baton-spring is on the class path
        }
    }
    // end::spring-bean[]

    // tag::spring-service[]
    static class PaymentCallbacks {
        private final StateTable<PaymentStatus> orders;
        private final Outbox outbox;
        private final JdbcTemplate jdbc;

        PaymentCallbacks(Baton baton, JdbcTemplate jdbc) {
            this.orders = baton.table("orders").id("id").state("payment_status", PaymentStatus.MACHINE);
            this.outbox = baton.outbox("baton_outbox");
            this.jdbc = jdbc;
        }

        @Transactional
        public TransitionResult<PaymentStatus> paid(long orderId, String gatewayTransactionId) {
            TransitionResult<PaymentStatus> r = outbox.transitionAndEnqueue(
                    orders.transition(orderId, PaymentStatus.PENDING, PaymentStatus.PAID)
                            .set("payment_transaction_id", gatewayTransactionId),
                    Message.of("payment.paid", Long.toString(orderId)));
            if (r.applied()) { // not for a duplicate callback (AlreadyInTarget)
                jdbc.update(
                        "INSERT INTO payment_ledger (order_id, entry_type, amount_cents)"
                                + " SELECT id, 'PAYMENT', amount_cents FROM orders WHERE id = ?",
                        orderId);
            }
            return r; // all three writes commit, or roll back, with this method's transaction
        }
    }
    // end::spring-service[]

    static TransitionResult<PaymentStatus> explicitConnection(
            StateTable<PaymentStatus> orders, DataSource dataSource, long orderId) {
        // tag::spring-explicit[]
        Connection c = DataSourceUtils.getConnection(dataSource); // the transaction's connection
        try {
            return orders.transition(orderId, PaymentStatus.PENDING, PaymentStatus.PAID)
                    .apply(c);
        } finally {
            DataSourceUtils.releaseConnection(c, dataSource);
        }
        // end::spring-explicit[]
    }

    static TransitionResult<PaymentStatus> retried(
            Baton baton, TransactionTemplate tx, StateTable<PaymentStatus> orders, Outbox outbox, long orderId) {
        // tag::spring-retry[]
        // deadlock, serialization failure, lock timeout, lost connection: run the whole transaction again
        RetryPolicy transientFailures = RetryPolicy.builder()
                .predicate(baton::isTransient)
                .maxRetries(4)
                .delay(Duration.ofMillis(50)) // Spring's default: 1 s between attempts
                .jitter(Duration.ofMillis(25))
                .build();
        RetryTemplate retry = new RetryTemplate(transientFailures);
        long receipt = TransactionReceipts.newReceipt(); // one per call, taken before the first attempt
        AtomicReference<TransitionResult<PaymentStatus>> done = new AtomicReference<>();
        return retry.invoke(() -> tx.execute(status -> {
            if (!baton.receipts().record(receipt)) {
                return done.get(); // an earlier attempt committed; only the reply to its COMMIT was lost
            }
            TransitionResult<PaymentStatus> r = orders.transition(orderId, PaymentStatus.PENDING, PaymentStatus.PAID)
                    .apply();
            if (r.applied()) {
                outbox.enqueue(Message.of("payment.paid", Long.toString(orderId)));
            }
            done.set(r);
            return r;
        }));
        // end::spring-retry[]
    }

    static Baton notJoining(DataSource dataSource) {
        // tag::spring-opt-out[]
        Baton own = Baton.builder(dataSource)
                .hostTransactions(HostTransactions.NONE) // every operation in a transaction of its own
                .build();
        // end::spring-opt-out[]
        return own;
    }

    static TransitionResult<PaymentStatus> plainDataSource(
            Baton baton, StateTable<PaymentStatus> orders, Outbox outbox, long orderId) {
        // tag::in-transaction[]
        return baton.inTransaction(connection -> {
            TransitionResult<PaymentStatus> r = orders.transition(orderId, PaymentStatus.PENDING, PaymentStatus.PAID)
                    .apply(); // joins the transaction inTransaction opened
            if (r.applied()) {
                outbox.enqueue(Message.of("payment.paid", Long.toString(orderId))); // the same transaction
            }
            return r; // committed here; retried whole on a transient failure, never after a COMMIT that took effect
        });
        // end::in-transaction[]
    }
}
