package dev.baton;

/**
 * Thrown by {@link ClaimedRow#checkLease()} inside a handler when the worker learned that the claim is lost, or the
 * claim's local deadline passed, so the handler stops before an external call. Baton itself never throws it from a queue operation: those return
 * {@link LeaseResult.LeaseLost}.
 */
public final class LeaseLostException extends BatonException {
    private static final long serialVersionUID = 1L;

    /** Creates an exception naming the queue and row. */
    public LeaseLostException(String queue, Object id) {
        super("lease lost on row " + id + " of queue '" + queue + "': another worker may own it now");
    }

    /** An exception naming the queue, the row and why the lease counts as lost. */
    LeaseLostException(String queue, Object id, String why) {
        super("lease lost on row " + id + " of queue '" + queue + "': " + why + "; another worker may own it now");
    }
}
