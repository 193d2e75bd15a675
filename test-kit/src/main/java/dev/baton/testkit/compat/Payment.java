package dev.baton.testkit.compat;

import dev.baton.StateMachine;

/** Payment status of seed 000, stored as integers. */
public enum Payment {
    /** Waiting for the gateway. */
    PENDING(0),
    /** The gateway confirmed payment. */
    PAID(1),
    /** The payment failed. */
    FAILED(2),
    /** No result in time. */
    EXPIRED(3);

    private final int code;

    Payment(int code) {
        this.code = code;
    }

    /** The stored code. */
    public int code() {
        return code;
    }

    /** The machine: PENDING to any of the others, all of which are terminal. */
    public static final StateMachine<Payment> MACHINE = StateMachine.of(Payment.class)
            .storedAs(Payment::code)
            .allow(PENDING, PAID, FAILED, EXPIRED)
            .terminal(PAID, FAILED, EXPIRED)
            .build();
}
