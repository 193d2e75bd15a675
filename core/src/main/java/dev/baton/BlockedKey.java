package dev.baton;

import dev.baton.internal.values.TypedValues;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * A key of a queue ordered per key whose later rows wait behind a dead or unknown row, as {@link BlockedKeys#list(int)}
 * lists it: the key, and its first dead or unknown row (requeue or resolve that one, and the key moves on in order).
 * Immutable.
 *
 * @param key the key
 * @param id the id of the key's first dead or unknown row
 * @param state that row's state: the queue's dead state or its unknown state
 * @param attempts that row's attempts column
 * @param lastError that row's error column, or null
 * @param <S> the enum of states
 */
public record BlockedKey<S extends Enum<S>>(String key, Object id, S state, int attempts, @Nullable String lastError) {

    /** Validates. */
    public BlockedKey {
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(id, "id");
        Objects.requireNonNull(state, "state");
    }

    /**
     * The holding row's id as a {@code long}.
     *
     * @throws ClassCastException if the id is not an integral number that fits in a {@code long}
     */
    public long longId() {
        return TypedValues.as(id, Long.class, "id of the row holding key " + key);
    }
}
