package dev.baton.examples.spring;

import dev.baton.Baton;
import dev.baton.ClaimQueue;
import dev.baton.Condition;
import dev.baton.Outcome;
import dev.baton.StateMachine;
import dev.baton.StateTable;
import dev.baton.spring.boot.QueueWorker;
import java.time.Duration;
import java.util.Optional;
import org.springframework.context.annotation.Bean;

/**
 * The non-idempotent sink of {@code docs/src/spring-boot.md}: compiled here so that the page's block cannot rot. Not a
 * {@code @Configuration}: the example application does not pick it up.
 */
class NonIdempotentSinkSnippets {
    /** A ledger that cannot deduplicate: each call posts an entry. */
    interface Ledger {
        /** Posts the order's entry; returns its reference. */
        String post(long orderId);

        /** The reference of the order's entry, if one was posted. */
        Optional<String> findByOrder(long orderId);
    }

    /** The push's own status column, with the two states of a non-idempotent sink. */
    enum Push {
        PENDING,
        PROCESSING,
        SENDING,
        UNKNOWN,
        COMPLETED,
        FAILED;

        static final StateMachine<Push> MACHINE = StateMachine.of(Push.class)
                .initial(PENDING)
                .allow(PENDING, PROCESSING)
                .allow(PROCESSING, PENDING, SENDING, COMPLETED, FAILED)
                .allow(SENDING, COMPLETED, UNKNOWN, FAILED, PENDING)
                .allow(UNKNOWN, COMPLETED, PENDING)
                .terminal(COMPLETED, FAILED)
                .build();
    }

    // tag::boot-non-idempotent[]
    @Bean
    ClaimQueue<Push> ledgerPush(Baton baton, StateTable<PaymentStatus> orders) {
        return baton.<Push>queue("ledger-push")
                .table("orders")
                .id("id")
                .claim("push_status", Push.MACHINE, Push.PENDING, Push.PROCESSING)
                .eligibleWhen(orders.is(PaymentStatus.PAID), Condition.isNull("ledger_ref"))
                .nonIdempotentSink(Push.SENDING, Push.UNKNOWN) // SENDING is committed before each call
                .deadState(Push.FAILED)
                .lease(Duration.ofMinutes(2)) // far longer than the ledger client's timeout
                .build();
    }

    @Bean
    QueueWorker<Push> ledgerPushWorker(ClaimQueue<Push> ledgerPush, Ledger ledger) {
        return QueueWorker.of(ledgerPush, row -> {
                    String ref = ledger.post(row.longId()); // no idempotency key: a second call posts twice
                    return Outcome.<Push>complete(Push.COMPLETED).set("ledger_ref", ref);
                })
                // a row whose lease expired in SENDING is UNKNOWN, never sent again: ask the ledger what it has
                .configure(worker -> worker.reconcile(Long.class, orderId -> ledger.findByOrder(orderId)
                        .map(ref -> Outcome.<Push>complete(Push.COMPLETED).set("ledger_ref", ref))
                        .orElseGet(Outcome::release))); // it never got the entry: send it again
    }
    // end::boot-non-idempotent[]
}
