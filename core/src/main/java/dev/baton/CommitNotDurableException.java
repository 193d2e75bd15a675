package dev.baton;

import org.jspecify.annotations.Nullable;

/**
 * Thrown by {@link Baton#inTransaction} under {@link CommitDurability#REQUIRE} when its transaction committed on the
 * writer but no standby was known to have it within the wait ({@link Baton.Builder#commitDurability}): a failover now
 * may lose it. The work's effects are committed on the writer; do not acknowledge them to a party that must not be
 * told twice or told wrongly (a payment gateway's callback: let it retry, and answer the retry once the state is
 * durable). Its listener calls were made, as after any commit.
 */
public final class CommitNotDurableException extends OutcomeInDoubtException {
    private static final long serialVersionUID = 1L;

    private final transient @Nullable Object result;

    /**
     * Creates the exception.
     *
     * @param operation what committed
     * @param reason why the commit is not known durable
     * @param result what the transaction's work returned (may be null)
     */
    public CommitNotDurableException(String operation, String reason, @Nullable Object result) {
        super(operation + ": committed on the writer but not known durable (" + reason + ")");
        this.result = result;
    }

    /** What the committed transaction's work returned (it committed on the writer); may be null. */
    public @Nullable Object result() {
        return result;
    }
}
