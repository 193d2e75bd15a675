package dev.baton.examples.spring;

/**
 * The answer to the gateway's callback.
 *
 * @param orderId the order
 * @param reply {@code ACKNOWLEDGED} (paid now, or a duplicate of a callback that won), {@code REFUND} (the order
 *     expired first), {@code TRANSACTION_REUSED} (the gateway transaction is on another order) or {@code RETRY_LATER}
 *     (no such order yet)
 * @param detail what Baton found
 */
public record CallbackReply(long orderId, String reply, String detail) {}
