package dev.baton.spi;

import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * The statements of an exclusive lock of the database that a transaction holds until it ends (e.g. PostgreSQL's
 * {@code pg_advisory_xact_lock}): what serialises the claims of a queue with a per-key limit across processes, so that
 * each claim counts the rows the one before it committed. Immutable.
 *
 * @param acquire a query, run first in the transaction, that waits for the lock and answers one row whose first column
 *     is 1 once it holds it (anything else: not acquired in the dialect's wait, and the transaction is retried)
 * @param releaseAfterEnd a statement run on the same connection after the transaction ended (committed or rolled back)
 *     for a lock that outlives transactions (MariaDB's {@code GET_LOCK} is held by the session), or null when the end
 *     of the transaction releases it
 */
public record ExclusiveLock(String acquire, @Nullable String releaseAfterEnd) {
    /** Checks the acquiring statement is there. */
    public ExclusiveLock {
        Objects.requireNonNull(acquire, "acquire");
    }

    /**
     * The name of the lock of a claim queue: {@code baton_claim_} and 16 hex digits of a hash of the queue's table and
     * name, which every dialect can write as a literal (two queues whose hashes collide only wait for each other).
     */
    public static String nameOf(long key) {
        return "baton_claim_" + String.format("%016x", key);
    }
}
