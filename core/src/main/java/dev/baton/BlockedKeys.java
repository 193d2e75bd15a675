package dev.baton;

import dev.baton.internal.queue.BlockedKeyStatements;
import java.util.List;
import java.util.Objects;

/**
 * The keys whose later messages wait behind a dead or unknown one ({@link Outbox#keys()}): with per-key ordering, the
 * first dead (or unknown) row of a key holds the key until it is requeued ({@link DeadLetters#requeue}), resolved or
 * deleted. Listed by the id of that row, lowest first, paged and counted within bounds as {@link DeadLetters} is.
 * Without per-key ordering no key is held: the list is empty. Read-only; immutable and thread-safe.
 *
 * <pre>{@code
 * for (BlockedKey<Outbox.Status> k : outbox.keys().list(50)) {
 *     log.warn("key {} waits behind message {}: {}", k.key(), k.longId(), k.lastError());
 * }
 * }</pre>
 *
 * @param <S> the enum of states
 */
public final class BlockedKeys<S extends Enum<S>> {
    private final BlockedKeyStatements<S> statements;

    BlockedKeys(BlockedKeyStatements<S> statements) {
        this.statements = statements;
    }

    /**
     * Held keys, by the id of their first dead or unknown row, lowest first, at most {@code limit}. Page with {@link
     * #listAfter}.
     *
     * @throws ConfigurationException if {@code limit} is outside 1..1000 (before any SQL)
     */
    public List<BlockedKey<S>> list(int limit) {
        return statements.list(null, limit);
    }

    /**
     * Held keys whose first dead or unknown row has an id greater than {@code afterId} (the last {@link BlockedKey#id()}
     * of the previous page), at most {@code limit}.
     *
     * @throws ConfigurationException if {@code limit} is outside 1..1000 (before any SQL)
     */
    public List<BlockedKey<S>> listAfter(Object afterId, int limit) {
        Objects.requireNonNull(afterId, "afterId");
        return statements.list(afterId, limit);
    }

    /**
     * The number of held keys, counted up to {@code limit}: the exact number when it is smaller, else {@code limit}.
     *
     * @throws ConfigurationException if {@code limit} is outside 1..100,000 (before any SQL)
     */
    public long count(int limit) {
        return statements.count(limit);
    }
}
