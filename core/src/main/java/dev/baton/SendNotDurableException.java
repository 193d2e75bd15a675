package dev.baton;

/**
 * Thrown by {@link ClaimQueue#markSending} on a queue with {@link SendDurability#REQUIRE} when no standby had the
 * SENDING mark within the queue's wait: the mark is committed on the primary, but a failover now could lose it and
 * send the row a second time. Do not make the external call; give the row back with {@link Outcome#retry} (a
 * {@link Worker} does).
 */
public final class SendNotDurableException extends BatonException {
    private static final long serialVersionUID = 1L;

    /** Creates an exception naming the queue, the row and why the mark is not known durable. */
    public SendNotDurableException(String queue, Object id, String reason) {
        super("the SENDING mark of row " + id + " in queue '" + queue + "' is not known durable on a standby (" + reason
                + "): not sent");
    }
}
