package dev.baton.examples.payment;

import dev.baton.StateMachine;

/** Payment status of an order (seed 000), stored as integers in {@code orders.payment_status}. */
public enum PaymentStatus {
    /** Waiting for the gateway: not "unpaid", not yet known. */
    PENDING(0),
    /** The gateway confirmed the payment. */
    PAID(1),
    /** The gateway reported a failure. */
    FAILED(2),
    /** No result within the payment window; a later callback is refused (and refunded). */
    EXPIRED(3);

    private final int code;

    PaymentStatus(int code) {
        this.code = code;
    }

    /** The stored code. */
    public int code() {
        return code;
    }

    // tag::payment-machine[]
    /** PENDING moves once, to PAID, FAILED or EXPIRED; nothing leaves those. */
    public static final StateMachine<PaymentStatus> MACHINE = StateMachine.of(PaymentStatus.class)
            .name("payment")
            .storedAs(PaymentStatus::code)
            .allow(PENDING, PAID, FAILED, EXPIRED)
            .terminal(PAID, FAILED, EXPIRED)
            .build();
    // end::payment-machine[]
}
