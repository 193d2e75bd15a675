package dev.baton.bench.jmh;

import dev.baton.StateMachine;

/** The README's payment machine, with integer codes and with string codes. */
enum Payment {
    PENDING(0),
    PAID(1),
    FAILED(2),
    EXPIRED(3);

    final int code;

    Payment(int code) {
        this.code = code;
    }

    static StateMachine<Payment> machine(boolean intCodes) {
        StateMachine.Builder<Payment> b = StateMachine.of(Payment.class);
        if (intCodes) {
            b.storedAs(p -> p.code);
        }
        return b.allow(PENDING, PAID, FAILED, EXPIRED)
                .terminal(PAID, FAILED, EXPIRED)
                .build();
    }
}
