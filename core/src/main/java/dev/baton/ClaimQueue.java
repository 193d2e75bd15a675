package dev.baton;

import dev.baton.internal.Engine;
import dev.baton.internal.queue.BlockedKeyStatements;
import dev.baton.internal.queue.ClaimChain;
import dev.baton.internal.queue.Claimer;
import dev.baton.internal.queue.DeadLetterStatements;
import dev.baton.internal.queue.FencedWrites;
import dev.baton.internal.queue.Inspection;
import dev.baton.internal.queue.QueueDefinition;
import dev.baton.internal.queue.QueueShape;
import dev.baton.internal.queue.SendProtocol;
import dev.baton.internal.queue.Settlements;
import dev.baton.internal.queue.Sweeps;
import dev.baton.internal.queue.UnknownStatements;
import java.sql.Connection;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * A claim queue over a host table: the rows in a claimable state that match an eligibility guard, handed out in
 * batches so that each row is held by exactly one worker at a time. Immutable and thread-safe; share one per queue.
 *
 * <pre>{@code
 * ClaimQueue<Sync> sync = baton.queue("order-sync")
 *     .table("orders").id("id")
 *     .claim("sync_status", syncMachine, Sync.PENDING, Sync.PROCESSING)
 *     .eligibleWhen(orders.is(Payment.PAID), Condition.isNull("third_party_guid"))
 *     .deadState(Sync.FAILED)
 *     .lease(Duration.ofMinutes(2))
 *     .build();
 * }</pre>
 *
 * <p>A claim moves up to n eligible, due rows from the claimable state to the processing state in one atomic step
 * per dialect and stamps each with a lease computed by the database clock ({@code lease_until = now + lease}), a
 * fresh fencing token ({@code claim_token}) and {@code attempts = attempts + 1}. Every later write (complete, retry,
 * dead-letter, heartbeat, release) requires {@code state = processing AND claim_token = token}; when it matches
 * nothing it returns {@link LeaseResult.LeaseLost} and writes nothing. Rows whose lease expired are returned to the
 * claimable state by {@link #reclaimExpired()} (workers run it), where any worker may claim them again.
 *
 * <p>The queue's table needs, besides the state column, the columns {@code lease_until} (timestamp), {@code
 * claim_token} (bigint), {@code attempts} (int, not null, default 0), {@code next_attempt_at} (timestamp) and {@code
 * last_error} (text); the names are configurable. {@link #verify()} checks them, the columns the conditions name and
 * that an index serves the claim, and throws a {@link SchemaMismatchException} carrying the DDL that adds what is
 * missing (the whole {@code CREATE TABLE} for a missing table).
 *
 * @param <S> the enum of states
 */
public final class ClaimQueue<S extends Enum<S>> {
    /** The largest error text stored with a retry or dead letter; longer texts are cut. */
    public static final int MAX_ERROR_LENGTH = FencedWrites.MAX_ERROR_LENGTH;

    private final QueueShape<S> shape;
    private final Claimer<S, ClaimedRow<S>> claimer;
    private final FencedWrites<S> writes;
    private final Sweeps<S> sweeps;
    private final Inspection<S> inspection;
    private final DeadLetters<S> deadLetters;
    private final UnknownSends<S> unknownSends;

    ClaimQueue(QueueDefinition<S> definition) {
        this.shape = new QueueShape<>(definition);
        QueueShape<S> sh = shape; // the lambda reads the shape, not this
        this.claimer = new Claimer<>(
                shape,
                (id, token, attempt, values, start) -> new ClaimedRow<>(
                        sh.name,
                        id,
                        token,
                        attempt,
                        values,
                        start,
                        sh.timing.lease(),
                        sh.timing.margin(),
                        sh.sendTimeout()));
        this.writes = new FencedWrites<>(shape, Outcome::assignments, ClaimedRow::markLeaseLost);
        this.sweeps = new Sweeps<>(shape);
        this.inspection = new Inspection<>(shape, claimer, sweeps);
        this.deadLetters = new DeadLetters<>(
                shape.name, shape.engine, new DeadLetterStatements<>(shape), new DeadLetterFinder<>(shape), null);
        this.unknownSends = new UnknownSends<>(shape, writes, sweeps, new UnknownStatements<>(shape), null);
    }

    /** The queue's name, used in log and exception messages, listener calls and idempotency keys. */
    public String name() {
        return shape.name;
    }

    /** The table as configured. */
    public String table() {
        return shape.table;
    }

    /** The state machine of the claim column. */
    public StateMachine<S> machine() {
        return shape.machine;
    }

    /** The lease a claim stamps. */
    public Duration lease() {
        return shape.timing.lease();
    }

    /** The retry policy: backoff between attempts and the number of attempts before the dead state. */
    public RetryPolicy retryPolicy() {
        return shape.retry;
    }

    /** The claimable state (e.g. PENDING). */
    public S claimableState() {
        return shape.claimable;
    }

    /** The processing state (e.g. PROCESSING). */
    public S processingState() {
        return shape.processing;
    }

    /** The dead state. */
    public S deadState() {
        return shape.dead;
    }

    /** The sending state of a non-idempotent sink, or null. */
    public @Nullable S sendingState() {
        return shape.send.map(SendProtocol::sending).orElse(null);
    }

    /** The unknown-outcome state of a non-idempotent sink, or null. */
    public @Nullable S unknownState() {
        return shape.send.map(SendProtocol::unknown).orElse(null);
    }

    /** The largest batch the dialect allows. */
    public int maxBatchSize() {
        return shape.dialect.traits().maxBatchSize();
    }

    /**
     * Claims up to {@code batchSize} eligible, due rows in the queue's order, skipping rows other transactions hold
     * locked, on the data source (retrying transient failures). A short or empty batch is normal under contention.
     * A row that has used {@code maxAttempts} is never claimed ({@link #reclaimExpired()} dead-letters it), so the
     * attempt a claim hands out is at most {@link RetryPolicy#maxAttempts()}.
     *
     * @throws ConfigurationException if {@code batchSize} is outside 1..{@link #maxBatchSize()}
     */
    public List<ClaimedRow<S>> claim(int batchSize) {
        List<BatonInterceptor> interceptors = shape.engine.interceptors();
        List<ClaimedRow<S>> claimed = interceptors.isEmpty()
                ? claimer.claim(batchSize)
                : new ClaimChain<>(shape, claimer, batchSize, 0).proceed();
        if (!claimed.isEmpty() && shape.engine.events().hasListeners()) {
            shape.engine.events().fire(l -> l.onClaim(shape.name, claimed.size()));
        }
        return claimed;
    }

    /**
     * Like {@link #claim(int)}, on the caller's connection and inside its transaction: the claim (lease, token,
     * attempt) commits or rolls back with it, and until then other claimers skip the rows. Never commits, rolls back
     * or retries; fires no listeners but {@link BatonListener#onEpochChange}. On a queue with a non-idempotent sink the
     * writer's epoch is read on {@code connection} first, as {@link #claim(int)} does; when it changed, the rows of the
     * SENDING marks this process lost are moved to the unknown state in a transaction of Baton's own on another
     * connection of the data source, committed before the claim (the caller's transaction may still roll back), and
     * the claim then takes nothing for {@link EpochChange#HOLD}.
     *
     * @throws ConfigurationException if {@code batchSize} is outside 1..{@link #maxBatchSize()}
     * @throws DataAccessException on a database failure (the caller decides about its transaction)
     */
    public List<ClaimedRow<S>> claim(Connection connection, int batchSize) {
        Objects.requireNonNull(connection, "connection");
        return shape.engine.tx().onCaller(connection, () -> claimer.claim(batchSize));
    }

    /**
     * The SQL text of a claim of {@code batchSize} rows, statement by statement (for logs and exact-SQL tests); with
     * a {@link ClaimQueueBuilder#rateLimit rate limit}, the bucket's locking read first, then the claim, the bucket's
     * first-use insert and its update.
     */
    public List<String> claimSql(int batchSize) {
        return claimer.sql(batchSize);
    }

    /** Completes the row into {@code target}; fenced by the claim's token. */
    public LeaseResult<S> complete(ClaimedRow<S> row, S target) {
        return apply(row, Outcome.complete(target));
    }

    /**
     * Applies a handler's outcome to one row in its own autocommit statement, fenced by the claim's token. When the
     * connection is lost after the statement was sent, the retry reads the row back: in the state written under this
     * claim's token it is {@link LeaseResult.Done} (also when an earlier call of this claim wrote it: the effect is
     * the same, once), in a terminal state without it {@link LeaseResult.LeaseLost}, otherwise in doubt.
     *
     * <p>A completion into a terminal state of a row this claim already completed into that state answers {@link
     * LeaseResult.Done} too, with or without a fault, here and in {@link #applyAll(List)}: the row is in the state
     * asked for, written once, by this claim (a terminal row never moves, a later claim stamps another token, and the
     * sweeps, releases and resolutions clear it), and nobody else holds it. {@link LeaseResult.LeaseLost} would tell
     * the caller, and the listeners' lease-lost count, that another worker may have the row, which is false; and the
     * answer must not depend on whether a reply was lost, nor on whether the row was completed alone or in a batch
     * (the one-statement batch completion cannot tell this call's rows from the claim's earlier ones).
     *
     * @return {@link LeaseResult.Done} with the row's new state, or {@link LeaseResult.LeaseLost}
     * @throws IllegalTransitionException if the outcome's completion state is not allowed from the processing state
     * @throws OutcomeInDoubtException when a lost connection leaves open whether the outcome was written
     */
    public LeaseResult<S> apply(ClaimedRow<S> row, Outcome<S> outcome) {
        return applyAll(List.of(new Decision<>(row, outcome))).get(0);
    }

    /**
     * Like {@link #complete(ClaimedRow, Enum)}, on the caller's connection and inside its transaction, so that the
     * handler's own writes and the fenced completion commit together. Never commits, rolls back or retries.
     */
    public LeaseResult<S> complete(Connection connection, ClaimedRow<S> row, S target) {
        return apply(connection, row, Outcome.complete(target));
    }

    /**
     * Like {@link #apply(ClaimedRow, Outcome)}, on the caller's connection and inside its transaction. A write the
     * database refuses is thrown (the caller's transaction decides), not dead-lettered. Never commits, rolls back or
     * retries; fires no listeners.
     */
    public LeaseResult<S> apply(Connection connection, ClaimedRow<S> row, Outcome<S> outcome) {
        return applyAll(connection, List.of(new Decision<>(row, outcome))).get(0);
    }

    /**
     * Like {@link #applyAll(List)}, on the caller's connection and inside its transaction. Never commits, rolls back
     * or retries; fires no listeners.
     *
     * @throws DataAccessException on a database failure, including a write the database refuses
     */
    public List<LeaseResult<S>> applyAll(Connection connection, List<Decision<S>> decisions) {
        Objects.requireNonNull(connection, "connection");
        return shape.engine.tx().onCaller(connection, () -> applyAll(decisions));
    }

    /**
     * Applies many outcomes in one transaction: one commit for the lot, each row still fenced by its own token. The
     * results are in the order given and say which rows were fenced out. The usual end of a batch, every row of one
     * claim completed into the same terminal state with nothing else set, is one statement. A row that claim had
     * already completed into the state asked for reports {@link LeaseResult.Done} again, whichever way it is written
     * (see {@link #apply(ClaimedRow, Outcome)}).
     *
     * @throws ConfigurationException if a row was claimed from another queue, or an outcome sets a column the queue
     *     manages (state, id, lease, token), before any SQL
     * @throws IllegalTransitionException if a completion state is not allowed from the processing state
     */
    public List<LeaseResult<S>> applyAll(List<Decision<S>> decisions) {
        for (Decision<S> d : decisions) {
            Objects.requireNonNull(d.row(), "row");
            Objects.requireNonNull(d.outcome(), "outcome");
            checkQueue(d.row());
        }
        List<LeaseResult<S>> results = writes.applyAll(decisions);
        if (shape.engine.events().hasListeners()) {
            Settlements.settled(shape, decisions, results);
        }
        return results;
    }

    /**
     * Extends the lease of a claimed row ({@code lease_until = now + lease}, database clock); fenced.
     *
     * @return Done (state unchanged) or LeaseLost, in which case the row may belong to another worker now
     */
    public LeaseResult<S> heartbeat(ClaimedRow<S> row) {
        return heartbeatAll(List.of(row)).get(0);
    }

    /** Extends many leases in one transaction, and the local deadline of each row extended ({@code remaining()}). */
    public List<LeaseResult<S>> heartbeatAll(List<ClaimedRow<S>> rows) {
        long start = System.nanoTime();
        List<LeaseResult<S>> results = writes.heartbeatAll(rows);
        for (int i = 0; i < results.size(); i++) {
            if (results.get(i).done()) {
                rows.get(i).renewed(start);
            }
        }
        Settlements.refused(shape, results, BatonListener.FencedWrite.HEARTBEAT);
        return results;
    }

    /**
     * Gives a claimed row back to the claimable state at once, and gives its attempt back (the next claim reports
     * the same attempt number); fenced by the token and the processing state only. A row in the sending state is
     * never released, since its irreversible call may be under way: the result is then {@link LeaseResult.LeaseLost},
     * the row stays held until its lease expires and the expiry sweep moves it to the unknown state.
     */
    public LeaseResult<S> release(ClaimedRow<S> row) {
        return apply(row, Outcome.release());
    }

    /**
     * Records, fenced and committed, that an external call that cannot be undone is about to be made: processing →
     * sending. A row whose lease expires in the sending state is never handed out again; it goes to the unknown state
     * for reconciliation ({@link #reclaimExpired()}). With {@link ClaimQueueBuilder#sendDurability} other than
     * {@code OFF}, returns only once a standby has flushed the mark, or the queue's wait is over (then {@code REQUIRE}
     * throws, {@code WARN} logs).
     *
     * <p>Refused before any SQL, with {@link LeaseResult.TooLate}, when the claim's local deadline ({@link
     * ClaimedRow#remaining()}) passed or less than the queue's {@link ClaimQueueBuilder#sendTimeout send timeout} is
     * left before it: the process may have been paused past its lease, or the send could outlive it. Nothing is
     * written; the row stays processing under this claim until its lease ends (release it to hand it out sooner). Do
     * not send. Once the mark committed, the local deadline counts from the mark (which stamped a fresh lease), and
     * {@link ClaimedRow#sendTimeLeft()} is the time the call may take, counted from the end of the durability wait
     * ({@link ClaimQueueBuilder#sendDurability}). That wait ends early enough to leave the send timeout before the
     * local deadline, whatever its {@code maxWait}; a mark whose own statement took so long that less is left answers
     * {@link LeaseResult.TooLate} with the row sending ({@link ClaimedRow#sendingMarked()}): do not send, give it to
     * the unknown state ({@link Outcome#unknown}) or let its lease end.
     *
     * @return {@link LeaseResult.Done} (sending: make the call, within {@link ClaimedRow#sendTimeLeft()}), {@link
     *     LeaseResult.LeaseLost} (another claim has the row: do not send) or {@link LeaseResult.TooLate} (do not send)
     * @throws ConfigurationException if the queue has no sending state
     * @throws SendNotDurableException with {@link SendDurability#REQUIRE}, when no standby had the mark in time: do not
     *     make the call; give the row back with {@link Outcome#retry}
     * @throws BatonException if called inside a host transaction (see {@link Baton}): the mark must commit before the
     *     call, and a connection of its own could wait forever on a lock the caller holds
     */
    public LeaseResult<S> markSending(ClaimedRow<S> row) {
        if (shape.send.isEmpty()) {
            throw new ConfigurationException(
                    "queue '" + shape.name + "' has no sending state (Builder.nonIdempotentSink)");
        }
        if (shape.engine.tx().inHostTransaction()) {
            throw new BatonException("markSending in queue '" + shape.name + "' must commit before the external call:"
                    + " call it outside a transaction");
        }
        checkQueue(row);
        long start = System.nanoTime();
        long left = row.nanosLeft(start);
        if (left < row.sendTimeoutNanos()) {
            return new LeaseResult.TooLate<>(row.id(), Duration.ofNanos(left));
        }
        LeaseResult<S> marked = writes.markSending(row, row.latestSendStart(start));
        if (marked.done()) {
            long sendStart = System.nanoTime();
            row.markedSending(start, sendStart);
            long leftAfter = row.nanosLeft(sendStart);
            if (leftAfter < row.sendTimeoutNanos()) {
                // the mark's statement took most of the lease: the row is sending, yet the send could outlive it
                return new LeaseResult.TooLate<>(row.id(), Duration.ofNanos(leftAfter));
            }
        }
        Settlements.refused(shape, List.of(marked), BatonListener.FencedWrite.SEND);
        return marked;
    }

    /**
     * Returns rows whose lease expired to the claimable state, moves those whose lease expired on their last
     * attempt ({@code attempts >= maxAttempts}: the handler crashed or hung every time) to the dead state, and moves
     * rows whose lease expired while sending to the unknown state. A claimable row whose attempts are used up (put
     * back by a host's transition or an older version, which {@link #claim(int)} passes over) also goes to the dead
     * state, keeping its last error. Clears the claim token of every row it moves, so no write or read-back of the
     * expired claim can match. Runs in bounded batches that skip locked rows; workers call it periodically.
     *
     * @return rows reclaimed plus rows dead-lettered plus rows moved to unknown
     */
    public long reclaimExpired() {
        return sweeps.reclaimExpired();
    }

    /** Whether a Worker of this queue sweeps now: see {@link Sweeps#takeWorkerTurn}. */
    boolean takeWorkerSweepTurn(long minGapNanos) {
        return sweeps.takeWorkerTurn(minGapNanos);
    }

    /** Whether a SENDING mark must be durable on a standby before the send ({@link ClaimQueueBuilder#sendDurability}). */
    public SendDurability sendDurability() {
        return shape.sendDurability();
    }

    /** The longest a send may take ({@link ClaimQueueBuilder#sendTimeout}). */
    public Duration sendTimeout() {
        return shape.sendTimeout();
    }

    /** Measures the queue (one query, database clock). It reads the whole table: see {@link #health(int)}. */
    public QueueHealth health() {
        return inspection.health();
    }

    /**
     * {@link #health()} with each count stopped at {@code limit}, 1..100,000 (else a {@link ConfigurationException}
     * before any SQL; a count equal to it means "at least"), one bounded statement per state.
     */
    public QueueHealth health(int limit) {
        return inspection.health(limit);
    }

    /**
     * The operator's view of the dead rows: list, count, requeue one or a bounded number ({@link DeadLetters}). Name
     * who acts with {@link DeadLetters#as}: the listeners hear every action with it.
     */
    public DeadLetters<S> deadLetters() {
        return deadLetters;
    }

    /**
     * The view of the unknown sends of a non-idempotent sink: list, count, resolve sent, not sent or dead ({@link
     * UnknownSends}); empty on a queue without an unknown state.
     */
    public UnknownSends<S> unknownSends() {
        return unknownSends;
    }

    /** The keys a dead or unknown row holds on a queue {@link ClaimQueueBuilder#orderedPerKey ordered per key}. */
    public BlockedKeys<S> blockedKeys() {
        return new BlockedKeys<>(new BlockedKeyStatements<>(shape));
    }

    /**
     * Checks the table: the columns the queue needs exist with usable types, the columns its {@code eligibleWhen}
     * conditions, order, {@code select}, {@code orderedPerKey} and {@code ageColumn} name exist, the id is unique, and
     * (PostgreSQL, MySQL, MariaDB) an index serves the claim, proven by the planner, and that the data source's sessions
     * are set up as the dialect's detection requires (a Galera node's {@code wsrep_sync_wait}). Throws one exception listing every
     * problem and the DDL that fixes it; for a missing table, the whole {@link #createTableSql}.
     *
     * @throws SchemaMismatchException if anything is missing
     */
    public void verify() {
        inspection.verify(List.of());
    }

    /**
     * Checks the table as {@link #verify()} does, and that it has {@code columnsUsed}: the columns your handlers'
     * outcomes set ({@link Outcome#set}, {@link Outcome#setNow}), which the queue learns of only when they are written.
     * For a missing column the DDL suggests a type: a timestamp for a name ending in {@code _at}, else short text.
     *
     * @param columnsUsed other columns the handlers write
     * @throws SchemaMismatchException if anything is missing
     * @throws InvalidIdentifierException if a name is not a plain identifier (before any SQL)
     */
    public void verify(String... columnsUsed) {
        inspection.verify(Inspection.checked(columnsUsed));
    }

    /**
     * The DDL of a table that fits this queue, in the dialect's SQL: {@code CREATE TABLE} with the id column as a
     * {@code BIGINT} primary key, the state column, the lease, token, attempts, next-attempt and error columns, the
     * columns the queue's conditions, order and selection name and {@code columnsUsed}; then the index that serves the
     * claim ({@link #suggestedIndex()}). What {@code verify()} hands over when the table does not exist. Needs no
     * connection.
     *
     * @param columnsUsed other columns the handlers write
     * @return the statements, in order
     * @throws InvalidIdentifierException if a name is not a plain identifier
     */
    public List<String> createTableSql(String... columnsUsed) {
        return inspection.createTableSql(Inspection.checked(columnsUsed));
    }

    /** DDL for an index that serves the claim: state, then equality guards, then the order. */
    public String suggestedIndex() {
        return inspection.suggestedIndex();
    }

    private void checkQueue(ClaimedRow<S> row) {
        if (!row.queue().equals(shape.name)) {
            throw new ConfigurationException(
                    "row " + row + " was claimed from queue '" + row.queue() + "', not '" + shape.name + "'");
        }
    }

    Engine engine() {
        return shape.engine;
    }

    /** How long a Worker's poller waits after a claim its rate limit cut, in nanos (0: not cut); see {@link Claimer}. */
    long rateLimitWaitNanos() {
        return claimer.rateLimitWaitNanos();
    }

    @Override
    public String toString() {
        return "ClaimQueue[" + shape.name + " on " + shape.table + "."
                + shape.def.columns().state() + " " + shape.claimable + " -> " + shape.processing + "]";
    }
}
