package dev.baton.examples.parking;

import dev.baton.StateMachine;

/** Status of a parking bill (seed 003), stored as its name in {@code parking_bills.status}. */
public enum BillStatus {
    /** Created by the first phone that asked for the fee. */
    INIT,
    /** One phone started paying; the others are told a payment is in progress. */
    PAYING,
    /** Paid: the car may leave. */
    PAID,
    /** The payment failed; may be paid again. */
    FAILED,
    /** The user cancelled the payment. */
    CANCELED,
    /** No result within the payment timeout. */
    EXPIRED;

    // tag::bill-machine[]
    /** The machine of seed 003: FAILED may be paid again; PAID, CANCELED and EXPIRED are final. */
    public static final StateMachine<BillStatus> MACHINE = StateMachine.of(BillStatus.class)
            .name("parking-bill")
            .allow(INIT, PAYING)
            .allow(PAYING, PAID, FAILED, CANCELED, EXPIRED)
            .allow(FAILED, PAYING)
            .terminal(PAID, CANCELED, EXPIRED)
            .build();
    // end::bill-machine[]
}
