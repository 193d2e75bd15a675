package dev.baton.testkit.compat;

import dev.baton.StateMachine;

/** Parking bill of seed 003, stored as strings; FAILED may be paid again. */
public enum Bill {
    /** Bill created. */
    INIT,
    /** A phone started paying. */
    PAYING,
    /** Paid. */
    PAID,
    /** Payment failed; may be retried. */
    FAILED,
    /** The user cancelled. */
    CANCELED,
    /** Timed out. */
    EXPIRED;

    /** The machine of seed 003. */
    public static final StateMachine<Bill> MACHINE = StateMachine.of(Bill.class)
            .storedAs(b -> b.name().toLowerCase(java.util.Locale.ROOT))
            .allow(INIT, PAYING)
            .allow(PAYING, PAID, FAILED, CANCELED, EXPIRED)
            .allow(FAILED, PAYING)
            .terminal(PAID, CANCELED, EXPIRED)
            .build();
}
