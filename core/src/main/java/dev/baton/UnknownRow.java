package dev.baton;

import dev.baton.internal.values.TypedValues;
import java.time.Instant;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * A row in a claim queue's unknown state (a send whose outcome nobody knows), as {@link UnknownSends#list(int)} lists it
 * for an operator. Immutable.
 *
 * <p>The table keeps no time of the mark itself: the lease column of an unknown row holds the end of its quarantine,
 * when a reconciler may ask the sink ({@link #reconcilableAt()}): for a send whose lease expired, {@code lease_until +
 * sendTimeout + margin}; for a handler that failed after its mark, {@code now + sendTimeout + margin}, both by the
 * database clock.
 *
 * @param id the row id, as the driver returned it ({@link #id(Class)} and {@link #longId()} read it typed)
 * @param attempts the attempts column: the claims made, the last of which sent (or may have sent) the row
 * @param lastError the error column (an earlier attempt's reason), or null
 * @param reconcilableAt the end of the row's quarantine by the database clock, or null when the column is NULL or of a
 *     type Baton does not read as a timestamp
 * @param ready true when the quarantine passed by the database clock at the read: a reconciler (and {@link
 *     UnknownSends#ready(int)}) may take the row; before that its sender may still be alive and call the sink
 * @param values the columns the queue selects ({@link ClaimQueueBuilder#select}), in that order; values may be null
 */
public record UnknownRow(
        Object id,
        int attempts,
        @Nullable String lastError,
        @Nullable Instant reconcilableAt,
        boolean ready,
        Map<String, @Nullable Object> values) {

    /** Copies {@code values}. */
    public UnknownRow {
        Objects.requireNonNull(id, "id");
        values = Collections.unmodifiableMap(new LinkedHashMap<>(values)); // Map.copyOf refuses null values
    }

    /**
     * The row id as {@code type}, converted as {@link ClaimedRow#id(Class)} converts it.
     *
     * @throws ClassCastException if the id is not readable as {@code type} without loss
     */
    public <T> T id(Class<T> type) {
        return TypedValues.as(id, type, "id of an unknown send");
    }

    /**
     * The row id as a {@code long}.
     *
     * @throws ClassCastException if the id is not an integral number that fits in a {@code long}
     */
    public long longId() {
        return id(Long.class);
    }
}
