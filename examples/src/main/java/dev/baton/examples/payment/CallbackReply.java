package dev.baton.examples.payment;

/** What the payment service answers the gateway's callback. */
public enum CallbackReply {
    /** The order is paid (by this callback or an earlier copy of it): acknowledge, the gateway stops retrying. */
    ACKNOWLEDGED,
    /** The order was already expired or failed: acknowledge, and refund the late payment. */
    REFUND,
    /** No such order (yet): let the gateway retry later. */
    RETRY_LATER,
    /** The gateway's transaction id is already bound to another order: alert, do not acknowledge. */
    TRANSACTION_REUSED
}
