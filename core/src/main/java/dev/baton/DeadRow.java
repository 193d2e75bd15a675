package dev.baton;

import dev.baton.internal.values.TypedValues;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * A row in a claim queue's dead state, as {@link DeadLetters#list(int)} lists it for an operator: its id, how many
 * claims it used, the reason it went dead, and the columns the queue selects. Immutable.
 *
 * @param id the row id, as the driver returned it ({@link #id(Class)} and {@link #longId()} read it typed)
 * @param attempts the attempts column: claims made before the row went dead
 * @param lastError the reason kept in the error column (a handler's dead letter or last retry, the expiry sweep's
 *     note, a database's refusal), or null if none was stored
 * @param values the columns the queue selects ({@link ClaimQueueBuilder#select}), in that order; values may be null
 */
public record DeadRow(Object id, int attempts, @Nullable String lastError, Map<String, @Nullable Object> values) {

    /**
     * How the error column of a row that went dead after its send may have happened starts, on a queue with a
     * non-idempotent sink: the reconciler's {@code deadLetter} verdict ("can't tell, give up"), or a completion the
     * database refused after the handler's send. A requeue would send such a row again, so requeues skip it unless
     * asked with {@link Requeue#EVEN_IF_MAYBE_SENT}.
     */
    public static final String MAY_HAVE_BEEN_SENT = "may have been sent: ";

    /** Which dead rows a requeue moves. */
    public enum Requeue {
        /**
         * Only rows that cannot have been sent: a row whose error starts with {@link #MAY_HAVE_BEEN_SENT} stays dead
         * (the default).
         */
        UNLESS_MAYBE_SENT,
        /**
         * Also rows that may have been sent: the operator checked with the receiver that sending again is right (or
         * harmless). A non-idempotent sink may act twice for them.
         */
        EVEN_IF_MAYBE_SENT
    }

    /** Copies {@code values}. */
    public DeadRow {
        Objects.requireNonNull(id, "id");
        values = Collections.unmodifiableMap(new LinkedHashMap<>(values)); // Map.copyOf refuses null values
    }

    /**
     * True when the row went dead after its send may have happened (its error starts with
     * {@link #MAY_HAVE_BEEN_SENT}): a requeue would send it again, and needs {@link Requeue#EVEN_IF_MAYBE_SENT}.
     */
    public boolean mayHaveBeenSent() {
        return lastError != null && lastError.startsWith(MAY_HAVE_BEEN_SENT);
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
