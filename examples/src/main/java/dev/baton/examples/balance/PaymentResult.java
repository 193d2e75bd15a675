package dev.baton.examples.balance;

/** What paying a purchase from the balance did. */
public enum PaymentResult {
    /** This call debited the balance. */
    PAID,
    /** An earlier call (or a concurrent duplicate) had paid it: nothing was debited now. */
    ALREADY_PAID,
    /** The balance was too low; the purchase is DECLINED. */
    DECLINED,
    /** No such purchase. */
    NOT_FOUND
}
