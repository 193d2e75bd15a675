package dev.baton;

/**
 * Thrown when a write may or may not have happened and Baton cannot tell: the connection was lost after the statement
 * (or the commit) was sent, so the server may have committed it, and no receipt read back on the retry settles
 * whether this call's write is the one that took effect. Baton never answers such a case with a certain result it
 * does not have (a {@code LeaseLost}, a {@code Duplicate}, a second copy of a message); the caller decides, e.g. by
 * reading the row, or by leaving the row to the queue's sweeps and reconciliation.
 *
 * <p>Operations that throw it: a fenced write ({@code ClaimQueue.complete}, {@code apply}, {@code release},
 * {@code markSending}, {@code UnknownSends} resolutions) whose retry matched no row and whose read-back does not show this
 * call's write; {@code
 * ClaimQueue.reclaimExpired()} when a batch's count was lost (the sweep ran to the end; {@link #atLeast()} rows were
 * moved for certain); {@code Baton.inTransaction} when the reply to its COMMIT was lost and no receipt table lets it
 * read that commit back (or no retry could), and as {@link CommitNotDurableException} when its commit was not known
 * durable in time ({@link Baton.Builder#commitDurability}). Not final only for that subclass.
 */
public class OutcomeInDoubtException extends BatonException {
    private static final long serialVersionUID = 1L;

    private final long atLeast;

    /** Creates an exception describing the operation in doubt. */
    public OutcomeInDoubtException(String message) {
        this(message, -1);
    }

    /** Creates an exception describing the operation in doubt, with the failure that left it so. */
    public OutcomeInDoubtException(String message, Throwable cause) {
        super(message, cause);
        this.atLeast = -1;
    }

    /** Creates an exception for a count of which only the lower bound {@code atLeast} is known. */
    public OutcomeInDoubtException(String message, long atLeast) {
        super(message);
        this.atLeast = atLeast;
    }

    /** For a sweep: the rows certainly moved (a lower bound of the true count); -1 when the operation has no count. */
    public long atLeast() {
        return atLeast;
    }
}
