package dev.baton;

import java.util.Objects;

/**
 * Proof that one {@link IdempotencyKeys#begin begin} call owns an idempotency key: the scope and key, and a fencing
 * value fresh for that call. {@link IdempotencyKeys#complete complete} and {@link IdempotencyKeys#fail fail} act only
 * while the stored key still carries this fence; once the lease expired and another request took the key over, they
 * return {@link FinishResult.LeaseLost} and change nothing. Immutable; it may be handed to another thread.
 *
 * @param scope the scope the key belongs to
 * @param key the idempotency key
 * @param fence the fencing value stored with the key by this begin call
 */
public record IdempotencyToken(String scope, String key, long fence) {
    /** Creates a token. */
    public IdempotencyToken {
        Objects.requireNonNull(scope, "scope");
        Objects.requireNonNull(key, "key");
    }
}
