package dev.baton.examples.docs;

import static dev.baton.examples.jooq.Tables.ORDERS;
import static dev.baton.examples.jooq.Tables.PAYMENT_LEDGER;
import static org.jooq.impl.DSL.inline;
import static org.jooq.impl.DSL.select;

import dev.baton.Baton;
import dev.baton.Message;
import dev.baton.Outbox;
import dev.baton.StateTable;
import dev.baton.TransitionResult;
import dev.baton.examples.payment.PaymentStatus;
import dev.baton.jooq.JooqTransactions;
import javax.sql.DataSource;
import org.jooq.DSLContext;
import org.jooq.SQLDialect;
import org.jooq.impl.DSL;
import org.jooq.impl.DefaultConfiguration;

/**
 * The snippets of docs/src/jooq.md, compiled. What they show is tested in the baton-jooq module
 * ({@code JooqTransactionsTest}) on PostgreSQL and MariaDB.
 */
final class JooqPageSnippets {
    private JooqPageSnippets() {}

    static DSLContext dsl(DataSource dataSource) {
        // tag::jooq-configuration[]
        DSLContext dsl = DSL.using(new DefaultConfiguration()
                .set(dataSource)
                .set(SQLDialect.POSTGRES)
                .set(JooqTransactions.listener(dataSource))); // Baton joins this DSLContext's transactions
        // end::jooq-configuration[]
        return dsl;
    }

    static TransitionResult<PaymentStatus> callback(
            DSLContext dsl, StateTable<PaymentStatus> orders, Outbox outbox, long orderId) {
        // tag::jooq-transaction[]
        return dsl.transactionResult(tx -> {
            TransitionResult<PaymentStatus> r = orders.transition(orderId, PaymentStatus.PENDING, PaymentStatus.PAID)
                    .apply(); // on jOOQ's connection, in jOOQ's transaction
            if (r.applied()) {
                tx.dsl()
                        .insertInto(
                                PAYMENT_LEDGER,
                                PAYMENT_LEDGER.ORDER_ID,
                                PAYMENT_LEDGER.ENTRY_TYPE,
                                PAYMENT_LEDGER.AMOUNT_CENTS)
                        .select(select(ORDERS.ID, inline("PAYMENT"), ORDERS.AMOUNT_CENTS)
                                .from(ORDERS)
                                .where(ORDERS.ID.eq(orderId)))
                        .execute();
                outbox.enqueue(Message.of("payment.paid", Long.toString(orderId)));
            }
            return r; // all of it commits, or rolls back, with jOOQ's transaction
        });
        // end::jooq-transaction[]
    }

    static Baton baton(DataSource dataSource) {
        return Baton.using(dataSource); // the same data source as the DSLContext's
    }
}
