package dev.baton;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * What {@link IdempotencyKeys#begin begin} found. A closed set of outcomes, returned rather than thrown:
 *
 * <ul>
 *   <li>{@link Started}: this request owns the key; do the work, then {@link IdempotencyKeys#complete complete} or
 *       {@link IdempotencyKeys#fail fail} with its token;
 *   <li>{@link InProgress}: another request owns the key and its lease has not expired (answer e.g. HTTP 409 and let
 *       the client retry later);
 *   <li>{@link Completed}: the work was done; replay the stored response;
 *   <li>{@link Mismatch}: the key was used with another request fingerprint (answer e.g. HTTP 422); nothing changed.
 * </ul>
 *
 * <pre>{@code
 * BeginResult r = keys.begin(userId, idempotencyKey, sha256(requestBody));
 * if (r instanceof BeginResult.Started s) {
 *     byte[] response = handle(request);
 *     keys.complete(s.token(), response);
 * } else if (r instanceof BeginResult.Completed c) {
 *     return c.response();
 * }
 * }</pre>
 */
public sealed interface BeginResult {

    /** The scope of the key. */
    String scope();

    /** The idempotency key. */
    String key();

    /**
     * This request owns the key until its lease expires.
     *
     * @param token the fencing token to complete or fail the key with
     * @param attempt 1 for the first request with this key; more when earlier requests' leases expired and this one
     *     took the key over, so an earlier attempt may have done part of the work
     */
    record Started(IdempotencyToken token, int attempt) implements BeginResult {
        /** Creates a result. */
        public Started {
            Objects.requireNonNull(token, "token");
        }

        @Override
        public String scope() {
            return token.scope();
        }

        @Override
        public String key() {
            return token.key();
        }

        /** True when an earlier request's lease expired and this request took the key over. */
        public boolean takenOver() {
            return attempt > 1;
        }
    }

    /**
     * Another request owns the key and its lease (database clock) has not expired.
     *
     * @param scope the scope of the key
     * @param key the idempotency key
     */
    record InProgress(String scope, String key) implements BeginResult {}

    /**
     * The key was completed; its stored response is returned. The array is a copy: changing it changes nothing
     * stored.
     *
     * @param scope the scope of the key
     * @param key the idempotency key
     * @param response the stored response bytes (possibly empty, never null)
     */
    record Completed(String scope, String key, byte[] response) implements BeginResult {
        /** Creates a result, copying the response. */
        public Completed {
            response = response.clone();
        }

        /** A copy of the stored response. */
        @Override
        public byte[] response() {
            return response.clone();
        }

        /** The stored response decoded as UTF-8. */
        public String responseText() {
            return new String(response, StandardCharsets.UTF_8);
        }

        @Override
        public boolean equals(@Nullable Object o) {
            return o instanceof Completed c
                    && scope.equals(c.scope)
                    && key.equals(c.key)
                    && Arrays.equals(response, c.response);
        }

        @Override
        public int hashCode() {
            return Objects.hash(scope, key, Arrays.hashCode(response));
        }

        @Override
        public String toString() {
            return "Completed[scope=" + scope + ", key=" + key + ", response=" + response.length + " bytes]";
        }
    }

    /**
     * The key exists with another request fingerprint: the client reused a key for a different request. Nothing was
     * changed.
     *
     * @param scope the scope of the key
     * @param key the idempotency key
     */
    record Mismatch(String scope, String key) implements BeginResult {}
}
