package dev.baton;

/**
 * What {@link Inbox#receive receive} found: the first delivery of a message, or a duplicate. Returned, never thrown.
 *
 * <pre>{@code
 * if (inbox.receive(connection, "gateway", event.id()) instanceof ReceiveResult.FirstDelivery) {
 *     applyEvent(connection, event);   // same transaction: a rollback forgets the delivery too
 * }
 * }</pre>
 */
public sealed interface ReceiveResult {

    /** The source of the message. */
    String source();

    /** The message id. */
    String messageId();

    /** True for {@link FirstDelivery}. */
    default boolean first() {
        return this instanceof FirstDelivery;
    }

    /**
     * No earlier delivery of this message is recorded; this call recorded it.
     *
     * @param source the source of the message
     * @param messageId the message id
     */
    record FirstDelivery(String source, String messageId) implements ReceiveResult {}

    /**
     * The message was received before (and is still within retention); nothing was written.
     *
     * @param source the source of the message
     * @param messageId the message id
     */
    record Duplicate(String source, String messageId) implements ReceiveResult {}
}
