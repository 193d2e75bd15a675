package dev.baton.examples.balance;

import dev.baton.StateMachine;

/** Status of a purchase paid from a balance (seed 001), stored as its name in {@code purchases.status}. */
public enum PurchaseStatus {
    /** Not paid yet. */
    UNPAID,
    /** Paid: the balance was debited once and the ledger has the entry. */
    PAID,
    /** Refused: the balance was too low. */
    DECLINED;

    // tag::purchase-machine[]
    /** UNPAID moves once, to PAID or DECLINED. String codes: on MariaDB the guard compares them byte for byte. */
    public static final StateMachine<PurchaseStatus> MACHINE = StateMachine.of(PurchaseStatus.class)
            .name("purchase")
            .allow(UNPAID, PAID, DECLINED)
            .terminal(PAID, DECLINED)
            .build();
    // end::purchase-machine[]
}
