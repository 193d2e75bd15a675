package dev.baton;

/** What {@link Outbox#enqueue} did: stored the message, or found one with the same dedup key. */
public sealed interface EnqueueResult {

    /**
     * The message was stored; it is delivered after the enqueuing transaction commits.
     *
     * @param id the message id
     */
    record Enqueued(long id) implements EnqueueResult {}

    /**
     * A message with this dedup key exists; nothing was stored and the caller's transaction is still usable.
     *
     * @param dedupKey the key
     */
    record Duplicate(String dedupKey) implements EnqueueResult {}
}
