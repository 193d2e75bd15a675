package dev.baton.examples.spring;

import dev.baton.StateMachine;

/** Payment status of an order (seed 000), stored as integers in {@code orders.payment_status}. */
public enum PaymentStatus {
    /** Waiting for the gateway's callback. */
    PENDING,
    /** The gateway confirmed the payment. */
    PAID,
    /** The payment window passed without a callback. */
    EXPIRED;

    /** PENDING → PAID once, or PENDING → EXPIRED once; both final. */
    public static final StateMachine<PaymentStatus> MACHINE = StateMachine.of(PaymentStatus.class)
            .name("payment")
            .storedAs(PaymentStatus::ordinal)
            .initial(PENDING)
            .allow(PENDING, PAID, EXPIRED)
            .terminal(PAID, EXPIRED)
            .build();
}
