package dev.baton.examples.docs;

import dev.baton.Baton;
import dev.baton.ClaimQueue;
import dev.baton.Condition;
import dev.baton.Message;
import dev.baton.Outbox;
import dev.baton.Outcome;
import dev.baton.StateMachine;
import dev.baton.StateTable;
import dev.baton.Worker;
import java.time.Duration;
import javax.sql.DataSource;

/**
 * The README's Java blocks after the quick start (the timer job, the outbox), compiled: {@code DocsTest} checks that
 * each README block is code of the example sources (whitespace aside), so the README cannot drift from the API. The
 * quick start itself is {@link QuickStart}, printed whole and run by {@code QuickStartTest}. Edit both together.
 */
final class ReadmeQuickStart {
    private ReadmeQuickStart() {}

    /** The third party of the README's worker. */
    interface ThirdParty {
        String create(Object orderId, String idempotencyKey) throws java.io.IOException;
    }

    /** The message broker of the README's outbox. */
    interface Broker {
        void publish(String topic, byte[] payload) throws Exception;
    }

    static void quickStart(
            DataSource dataSource, long orderId, String gatewayTxId, ThirdParty thirdParty, Broker broker) {
        // The README's quick start is QuickStart.java; the blocks below continue it.
        enum Payment {
            PENDING,
            PAID,
            FAILED,
            EXPIRED
        }
        StateMachine<Payment> payment = StateMachine.of(Payment.class)
                .allow(Payment.PENDING, Payment.PAID, Payment.FAILED, Payment.EXPIRED)
                .terminal(Payment.PAID, Payment.FAILED, Payment.EXPIRED)
                .build();
        Baton baton = Baton.using(dataSource);
        StateTable<Payment> orders = baton.table("orders").id("id").state("payment_status", payment);

        // tag::readme-queue[]
        enum Sync {
            PENDING,
            PROCESSING,
            COMPLETED,
            FAILED
        }

        StateMachine<Sync> sync = StateMachine.of(Sync.class)
                .initial(Sync.PENDING)
                .allow(Sync.PENDING, Sync.PROCESSING)
                .allow(Sync.PROCESSING, Sync.PENDING, Sync.COMPLETED, Sync.FAILED)
                .terminal(Sync.COMPLETED, Sync.FAILED)
                .build();

        ClaimQueue<Sync> toThirdParty = baton.<Sync>queue("order-sync")
                .table("orders")
                .id("id")
                .claim("sync_status", sync, Sync.PENDING, Sync.PROCESSING)
                .eligibleWhen(orders.is(Payment.PAID), Condition.isNull("third_party_guid"))
                .deadState(Sync.FAILED)
                .lease(Duration.ofMinutes(2))
                .build();
        toThirdParty.verify(); // columns, and an index that serves the claim (EXPLAIN); else throws with the DDL to add

        Worker worker = baton.worker(toThirdParty)
                .batchSize(50)
                .concurrency(8)
                .handle(row -> {
                    String guid = thirdParty.create(row.id(), row.idempotencyKey()); // same key on every attempt
                    return Outcome.<Sync>complete(Sync.COMPLETED).set("third_party_guid", guid);
                })
                .start(); // on every host; worker.close() drains gracefully
        // end::readme-queue[]

        // tag::readme-outbox[]
        baton.ownTables().createOutboxTable(Outbox.DEFAULT_TABLE); // DDL also ships as resources for Flyway/Liquibase
        Outbox outbox = baton.outbox(Outbox.DEFAULT_TABLE);
        outbox.transitionAndEnqueue( // one transaction; a duplicate callback enqueues nothing
                orders.transition(orderId, Payment.PENDING, Payment.PAID).set("payment_transaction_id", gatewayTxId),
                Message.of("order.paid", "{\"order\":" + orderId + "}").key("order-" + orderId));
        Worker dispatcher =
                outbox.dispatcher(m -> broker.publish(m.topic(), m.payload())).start();
        // end::readme-outbox[]
        worker.close();
        dispatcher.close();
    }
}
