package dev.baton.examples.spring;

import dev.baton.Baton;
import dev.baton.ClaimQueue;
import dev.baton.Condition;
import dev.baton.Inbox;
import dev.baton.Outbox;
import dev.baton.Outcome;
import dev.baton.RetryPolicy;
import dev.baton.StateTable;
import dev.baton.spring.boot.BatonProperties;
import dev.baton.spring.boot.QueueWorker;
import java.time.Duration;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Baton's objects as beans. The {@link Baton} itself comes from the starter, over the application's pool; the tables
 * are created by {@code schema-*.sql} (the host's tables) and {@code baton.own-tables.*} (Baton's outbox and inbox).
 */
@Configuration(proxyBeanMethods = false)
public class PaymentConfiguration {
    /** The orders table as Baton sees it. */
    // tag::boot-beans[]
    @Bean
    StateTable<PaymentStatus> orders(Baton baton) {
        return baton.table("orders").id("id").state("payment_status", PaymentStatus.MACHINE);
    }

    @Bean
    Outbox outbox(Baton baton) {
        return baton.outbox("baton_outbox");
    }

    @Bean
    Inbox inbox(Baton baton) {
        return baton.inbox("baton_inbox");
    }
    // end::boot-beans[]

    /** The timer job's queue: PAID orders without a third-party GUID. */
    // tag::boot-queue[]
    @Bean
    ClaimQueue<SyncStatus> orderSync(Baton baton, StateTable<PaymentStatus> orders, BatonProperties properties) {
        return baton.<SyncStatus>queue("order-sync")
                .table("orders")
                .id("id")
                .claim("sync_status", SyncStatus.MACHINE, SyncStatus.PENDING, SyncStatus.PROCESSING)
                .eligibleWhen(orders.is(PaymentStatus.PAID), Condition.isNull("third_party_guid"))
                .select("amount_cents")
                .deadState(SyncStatus.FAILED)
                .lease(properties.queue("order-sync").leaseOr(Duration.ofSeconds(30)))
                .retry(RetryPolicy.exponential(Duration.ofMillis(200), 2.0).maxAttempts(8))
                .ageColumn("paid_at")
                .build();
    }
    // end::boot-queue[]

    @Bean
    ThirdParty thirdParty() {
        return new ThirdParty();
    }

    @Bean
    Broker broker() {
        return new Broker();
    }

    /** The timer job as a worker bean: started with the context, stopped before the pool closes. */
    // tag::boot-worker[]
    @Bean
    QueueWorker<SyncStatus> orderSyncWorker(ClaimQueue<SyncStatus> orderSync, ThirdParty thirdParty) {
        return QueueWorker.of(orderSync, row -> {
            long orderId = ((Number) row.id()).longValue();
            String guid = thirdParty.create(orderId, row.idempotencyKey()); // same key on every retry of this row
            return Outcome.<SyncStatus>complete(SyncStatus.COMPLETED).set("third_party_guid", guid);
        });
    }

    @Bean
    QueueWorker<Outbox.Status> outboxDispatcher(Outbox outbox, Broker broker) {
        return QueueWorker.dispatcher(outbox, broker);
    }
    // end::boot-worker[]
}
