package dev.baton;

import dev.baton.internal.TypedValues;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * A row in a claim queue's dead state, as {@link ClaimQueue#deadRows(int)} lists it for an operator: its id, how many
 * claims it used, the reason it went dead, and the columns the queue selects. Immutable.
 *
 * @param id the row id, as the driver returned it ({@link #id(Class)} and {@link #longId()} read it typed)
 * @param attempts the attempts column: claims made before the row went dead
 * @param lastError the reason kept in the error column (a handler's dead letter or last retry, the expiry sweep's
 *     note, a database's refusal), or null if none was stored
 * @param values the columns the queue selects ({@link ClaimQueueBuilder#select}), in that order; values may be null
 */
public record DeadRow(Object id, int attempts, @Nullable String lastError, Map<String, @Nullable Object> values) {

    /** Copies {@code values}. */
    public DeadRow {
        Objects.requireNonNull(id, "id");
        values = Collections.unmodifiableMap(new LinkedHashMap<>(values)); // Map.copyOf refuses null values
    }

    /**
     * The row id as {@code type}, converted as {@link ClaimedRow#id(Class)} converts it.
     *
     * @throws ClassCastException if the id is not readable as {@code type} without loss
     */
    public <T> T id(Class<T> type) {
        return TypedValues.as(id, type, "id of a dead row");
    }

    /**
     * The row id as a {@code long}.
     *
     * @throws ClassCastException if the id is not an integral number that fits in a {@code long}
     */
    public long longId() {
        return id(Long.class);
    }

    /**
     * The value of a selected column as {@code type}; null when the column is NULL.
     *
     * @throws IllegalArgumentException if the queue does not select the column
     * @throws ClassCastException if the value is not readable as {@code type} without loss
     */
    public <T> @Nullable T get(String column, Class<T> type) {
        if (!values.containsKey(column)) {
            throw new IllegalArgumentException(
                    "column " + column + " is not selected by the queue (selected: " + values.keySet() + ")");
        }
        return TypedValues.as(values.get(column), type, "column " + column + " of dead row " + id);
    }
}
