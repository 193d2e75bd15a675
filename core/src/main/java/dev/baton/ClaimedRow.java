package dev.baton;

import dev.baton.internal.values.TypedValues;
import java.time.Duration;
import java.util.Collections;
import java.util.Map;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * A row this worker claimed: its id, the fencing token of the claim, the attempt number, and the columns the queue
 * selects. Every later write about the row carries the token. Thread-safe; the lease flag may be set by the worker's
 * heartbeat thread while a handler runs.
 *
 * <p>Besides the lease the database keeps, a claimed row has a <em>local deadline</em> by this JVM's monotonic clock
 * ({@link System#nanoTime()}): the time taken before the claim statement was sent, plus the lease, minus a safety
 * margin (a twentieth of the lease, at most 2 s). The database stamped its lease after that moment, so the local
 * deadline passes before the database's lease ends, whatever the two clocks read. A heartbeat, and the mark of a send
 * ({@link ClaimQueue#markSending}), move it on from the time taken before their statement. It needs no heartbeat to
 * pass: a process that was paused (a GC pause, {@code SIGSTOP}, a frozen VM) finds it passed when it resumes, where
 * the lease-lost flag still reads false because no heartbeat ran. {@link #checkLease()} and {@link
 * ClaimQueue#markSending} refuse once it passed; {@link #remaining()} and {@link #sendTimeLeft()} give a client its
 * timeout.
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
    private final long leaseNanos;
    private final long marginNanos;
    private final long sendTimeoutNanos;
    private volatile boolean leaseLost;
    private volatile @Nullable Thread handlerThread;
    /** The local deadline, a {@link System#nanoTime()} value; only ever moved on. */
    private volatile long deadline;
    /** When the send must be over, a {@link System#nanoTime()} value; valid once {@link #marked}. */
    private volatile long sendDeadline;

    private volatile boolean marked;

    ClaimedRow(String queue, Object id, long token, int attempt, Map<String, @Nullable Object> values) {
        this(queue, id, token, attempt, values, System.nanoTime(), Duration.ofDays(1), Duration.ZERO, Duration.ZERO);
    }

    /**
     * A claimed row whose claim statement was sent after {@code startNanos} ({@link System#nanoTime()}), for a queue
     * with {@code lease}, {@code margin} and {@code sendTimeout}.
     */
    ClaimedRow(
            String queue,
            Object id,
            long token,
            int attempt,
            Map<String, @Nullable Object> values,
            long startNanos,
            Duration lease,
            Duration margin,
            Duration sendTimeout) {
        this.leaseNanos = lease.toNanos();
        this.marginNanos = margin.toNanos();
        this.sendTimeoutNanos = sendTimeout.toNanos();
        this.deadline = startNanos + leaseNanos - marginNanos;
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

    /**
     * The token of this claim's send, for a sink that fences ("the way to zero" in the claim-queues guide): the same
     * for every call this claim makes, and ordered across the claims of the row: a claim that can send (it committed
     * {@link ClaimQueue#markSending}) has a higher token than every earlier claim of the row that could. A sink that
     * keeps the highest token it saw per row (or that the reconciler raised it to) and refuses a call with a token not
     * above it turns away a sender that resumed after its row was given to another claim.
     *
     * <p>It is the attempt number ({@link #attempt()}): every claim adds one to the row's attempts column in the same
     * atomic statement that hands the row to exactly one claimer, so two claims of a row never share an attempt that
     * could send. The only moves that lower the column are the release of a row still in the processing state (so
     * never marked sending: its attempt is given back, and it sent nothing) and the operator's {@link
     * DeadLetters#requeue} (the count starts again at 1: a fenced sink that saw a send of the row before refuses the
     * requeued row's sends until the sink's record is reset, which is the safe side for a row that may have been sent).
     * A failover to a standby that lacked the last commits lowers it too: a claim lost with the old writer took its
     * attempt along, and the next claim of the row carries the same token again (a fenced sink that saw the lost
     * claim's call refuses the new one).
     */
    public long sendToken() {
        return attempt;
    }

    /**
     * The time left before this claim's local deadline (see the class comment); zero or negative once it passed.
     * Give a client no more than this for a call it makes under the claim.
     */
    public Duration remaining() {
        return Duration.ofNanos(deadline - System.nanoTime());
    }

    /**
     * The time the send of a non-idempotent sink may still take: after {@link ClaimQueue#markSending} committed, the
     * time left of the queue's {@link ClaimQueueBuilder#sendTimeout} from the mark (never past the local deadline);
     * before it, the send timeout (or the time left, if less). Give it to the client as its timeout for the whole call
     * (connect, write, read). Zero or negative: do not send.
     */
    public Duration sendTimeLeft() {
        long now = System.nanoTime();
        long end = marked ? Math.min(sendDeadline, deadline) : Math.min(now + sendTimeoutNanos, deadline);
        return Duration.ofNanos(end - now);
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
     * True once the worker learned that this claim is lost (a heartbeat found the row reclaimed), or once the claim's
     * local deadline passed (see the class comment). A handler checks it right before an external call it cannot
     * undo.
     */
    public boolean leaseLost() {
        return leaseLost || deadline - System.nanoTime() <= 0;
    }

    /**
     * Throws {@link LeaseLostException} if the lease is known to be lost, or the claim's local deadline passed (the
     * lease may have ended in the database while this process was paused, and no heartbeat ran to tell); call it right
     * before an external call that cannot be undone. It cannot cover a pause between this check and the call's
     * bytes leaving the process: the claim-queues guide states that window.
     *
     * @throws LeaseLostException as said
     */
    public void checkLease() {
        if (leaseLost) {
            throw new LeaseLostException(queue, id);
        }
        long left = deadline - System.nanoTime();
        if (left <= 0) {
            throw new LeaseLostException(
                    queue,
                    id,
                    "the claim's local deadline passed "
                            + Duration.ofNanos(-left).toMillis()
                            + " ms ago (this process may have been paused past its lease)");
        }
    }

    /** Marks the lease lost and interrupts the handler; true the first time, false when it was marked already. */
    synchronized boolean markLeaseLost() {
        boolean first = !leaseLost;
        leaseLost = true;
        Thread t = handlerThread;
        if (t != null) {
            t.interrupt();
        }
        return first;
    }

    /** True once the lease-lost flag is set (by a heartbeat or the worker), whatever the local deadline says. */
    boolean markedLost() {
        return leaseLost;
    }

    /** The nanoseconds left before the local deadline at {@code now}. */
    long nanosLeft(long now) {
        return deadline - now;
    }

    /** The queue's send timeout in nanoseconds. */
    long sendTimeoutNanos() {
        return sendTimeoutNanos;
    }

    /** A heartbeat whose statement was sent after {@code startNanos} extended the lease in the database. */
    synchronized void renewed(long startNanos) {
        long d = startNanos + leaseNanos - marginNanos;
        if (d - deadline > 0) {
            deadline = d;
        }
    }

    /**
     * The mark of a send, sent after {@code startNanos}, committed (and waited for, until {@code sendStartNanos}): it
     * stamped a fresh lease too, and the send may take the send timeout from the end of the wait.
     */
    synchronized void markedSending(long startNanos, long sendStartNanos) {
        renewed(startNanos);
        sendDeadline = sendStartNanos + sendTimeoutNanos;
        marked = true;
    }

    /**
     * The latest moment a send may start after a mark sent at {@code startNanos}: the send timeout and a tenth of it
     * (at most 1 s, for the wait's last poll and the scheduler) before the deadline the mark gives. A durability wait
     * ends there, so that it never eats the send's time.
     */
    long latestSendStart(long startNanos) {
        long slack = Math.min(sendTimeoutNanos / 10, 1_000_000_000L);
        return startNanos + leaseNanos - marginNanos - sendTimeoutNanos - slack;
    }

    /**
     * True once {@link ClaimQueue#markSending} committed this claim's SENDING mark, whatever it answered: a {@link
     * LeaseResult.TooLate} after a mark that itself took too long leaves the row sending (do not send; it reaches the
     * unknown state when its lease ends).
     */
    public boolean sendingMarked() {
        return marked;
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
