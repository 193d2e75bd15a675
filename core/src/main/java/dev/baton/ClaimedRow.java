package dev.baton;

import dev.baton.internal.TypedValues;
import java.util.Collections;
import java.util.Map;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * A row this worker claimed: its id, the fencing token of the claim, the attempt number, and the columns the queue
 * selects. Every later write about the row carries the token. Thread-safe; the lease flag may be set by the worker's
 * heartbeat thread while a handler runs.
 *
 * @param <S> the enum of states
 */
public final class ClaimedRow<S extends Enum<S>> {
    private final String queue;
    private final Object id;
    private final long token;
    private final int attempt;
    private final Map<String, @Nullable Object> values;
    private final int hash; // the worker keys its in-flight map by the row: hashed on every put and remove
    private volatile boolean leaseLost;
    private volatile @Nullable Thread handlerThread;

    ClaimedRow(String queue, Object id, long token, int attempt, Map<String, @Nullable Object> values) {
        this.queue = queue;
        this.id = id;
        this.token = token;
        this.attempt = attempt;
        this.values = values.isEmpty() ? Map.of() : Collections.unmodifiableMap(values);
        this.hash = (31 * queue.hashCode() + id.hashCode()) * 31 + Long.hashCode(token);
    }

    /** The row id, as the driver returned it (see {@link #id(Class)} and {@link #longId()} for a typed read). */
    public Object id() {
        return id;
    }

    /**
     * The row id as {@code type}: the value itself when it has that type, an integral id as any integral type it fits
     * in ({@code Long}, {@code Integer}, {@code BigInteger}, {@code BigDecimal}, …, whichever the driver returned), a
     * UUID stored as text as a {@code UUID}.
     *
     * <pre>{@code
     * UUID orderId = row.id(UUID.class);
     * }</pre>
     *
     * @throws ClassCastException if the id is not readable as {@code type} without loss
     */
    public <T> T id(Class<T> type) {
        return TypedValues.as(id, type, "id of a row of queue '" + queue + "'");
    }

    /**
     * The row id as a {@code long}, whatever integral type the driver returned it as.
     *
     * @throws ClassCastException if the id is not an integral number that fits in a {@code long}
     */
    public long longId() {
        return id(Long.class);
    }

    /** The fencing token of this claim: fresh for every claim of the row. */
    public long token() {
        return token;
    }

    /** Which claim of the row this is, 1 for the first (the attempts column after the claim). */
    public int attempt() {
        return attempt;
    }

    /** The value of a column the queue selects ({@link ClaimQueueBuilder#select}); names compare as configured. */
    public @Nullable Object get(String column) {
        if (!values.containsKey(column)) {
            throw new IllegalArgumentException("column " + column + " is not selected by queue '" + queue
                    + "' (selected: " + values.keySet() + ")");
        }
        return values.get(column);
    }

    /**
     * The value of a selected column as {@code type}, converted as {@link #id(Class)} converts the id; null when the
     * column is NULL.
     *
     * <pre>{@code
     * long amountCents = row.get("amount_cents", Long.class);
     * String gatewayTx = row.get("payment_transaction_id", String.class);
     * }</pre>
     *
     * @throws IllegalArgumentException if the queue does not select the column
     * @throws ClassCastException if the value is not readable as {@code type} without loss
     */
    public <T> @Nullable T get(String column, Class<T> type) {
        return TypedValues.as(get(column), type, "column " + column + " of row " + id + " of queue '" + queue + "'");
    }

    /** All selected columns. */
    public Map<String, @Nullable Object> values() {
        return values;
    }

    /**
     * A key that is the same for every attempt at this row, for a sink that deduplicates: {@code queue:id}. Hand it to
     * an idempotent third party so a retry after a crash cannot create a second record.
     */
    public String idempotencyKey() {
        return queue + ":" + id;
    }

    /**
     * True once the worker learned that this claim is lost (a heartbeat found the row reclaimed). A handler checks it
     * right before an external call it cannot undo.
     */
    public boolean leaseLost() {
        return leaseLost;
    }

    /**
     * Throws {@link LeaseLostException} if the lease is known to be lost; call it before an external call that cannot
     * be undone.
     */
    public void checkLease() {
        if (leaseLost) {
            throw new LeaseLostException(queue, id);
        }
    }

    void markLeaseLost() {
        leaseLost = true;
        Thread t = handlerThread;
        if (t != null) {
            t.interrupt();
        }
    }

    void handlerThread(Thread thread) {
        this.handlerThread = thread;
    }

    String queue() {
        return queue;
    }

    @Override
    public boolean equals(@Nullable Object o) {
        return o == this
                || o instanceof ClaimedRow<?> r
                        && r.hash == hash
                        && r.token == token
                        && Objects.equals(r.id, id)
                        && r.queue.equals(queue);
    }

    @Override
    public int hashCode() {
        return hash;
    }

    @Override
    public String toString() {
        return "ClaimedRow[" + queue + " id=" + id + " attempt=" + attempt + " token=" + token + "]";
    }
}
