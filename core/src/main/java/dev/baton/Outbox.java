package dev.baton;

import dev.baton.internal.CommitWait;
import dev.baton.internal.DatabaseClock;
import dev.baton.internal.Engine;
import dev.baton.internal.KeyText;
import dev.baton.internal.tables.OutboxStatements;
import dev.baton.internal.tables.OwnTableUpgrades;
import dev.baton.internal.tx.SqlWork;
import dev.baton.spi.Dialect;
import dev.baton.spi.OwnTableDialect.OwnTable;
import dev.baton.spi.SqlError;
import java.security.SecureRandom;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.OptionalLong;
import org.jspecify.annotations.Nullable;

/**
 * A transactional outbox: messages are written in the caller's transaction, next to the state change they announce,
 * and delivered after it commits by a claim queue and a worker, at least once, each message by one worker at a time,
 * in enqueue order per key. Immutable and thread-safe.
 *
 * <pre>{@code
 * baton.ownTables().createOutboxTable(Outbox.DEFAULT_TABLE);
 * Outbox outbox = baton.outbox(Outbox.DEFAULT_TABLE);
 *
 * // the callback: the transition and its announcement commit together, or not at all
 * TransitionResult<Payment> r = outbox.transitionAndEnqueue(
 *     orders.transition(orderId, Payment.PENDING, Payment.PAID).set("payment_transaction_id", txId),
 *     Message.of("order.paid", "{\"order\":" + orderId + "}").key("order-" + orderId));
 *
 * // the dispatcher, on every host
 * Worker dispatcher = outbox.dispatcher(message -> broker.publish(message.topic(), message.payload()))
 *     .batchSize(100).start();
 * }</pre>
 */
public final class Outbox {
    /** The default table name. */
    public static final String DEFAULT_TABLE = "baton_outbox";
    /** Rows deleted per statement by {@link #purgeDelivered}. */
    public static final int PURGE_BATCH = 500;

    /**
     * The youngest age {@link #purgeDelivered} accepts. An enqueue whose reply was lost looks for its message's receipt
     * when it retries, after reconnecting (seconds, or several times the pool's connection timeout): a message
     * delivered and purged before that look would be taken for one never stored, and stored a second time.
     */
    public static final Duration MIN_PURGE_AGE = Duration.ofMinutes(10);

    /** A message's delivery state. */
    public enum Status {
        /** Waiting for delivery (or for a retry). */
        PENDING(0),
        /** Claimed by a dispatcher. */
        PROCESSING(1),
        /** Delivered. */
        DELIVERED(2),
        /** Gave up after the last attempt. */
        DEAD(3);

        private final int code;

        Status(int code) {
            this.code = code;
        }

        /** The stored code. */
        public int code() {
            return code;
        }

        /** The machine of the status column. */
        public static final StateMachine<Status> MACHINE = StateMachine.of(Status.class)
                .name("outbox")
                .storedAs(Status::code)
                .initial(PENDING)
                .allow(PENDING, PROCESSING)
                .allow(PROCESSING, PENDING, DELIVERED, DEAD)
                .terminal(DELIVERED, DEAD)
                .build();
    }

    /**
     * Delivers one message; returning normally marks it delivered, throwing schedules a retry.
     */
    @FunctionalInterface
    public interface Sink {
        /** Delivers the message (at least once: use {@link OutboxMessage#idempotencyKey()} where the sink can). */
        void deliver(OutboxMessage message) throws Exception;
    }

    /**
     * Settings of an outbox. Immutable; each method returns new options.
     *
     * @param maxPayloadBytes largest payload accepted, checked before any SQL (default 1 MiB)
     * @param orderedPerKey whether messages with one key are delivered one at a time in enqueue order (default true)
     * @param lease how long a dispatcher holds a message (default 1 minute)
     * @param retry backoff and attempts before a message is dead (default 1 s doubling to 10 min, 20 attempts)
     */
    public record Options(int maxPayloadBytes, boolean orderedPerKey, Duration lease, RetryPolicy retry) {
        /** Validates. */
        public Options {
            if (maxPayloadBytes < 1 || maxPayloadBytes > 64 * 1024 * 1024) {
                throw new ConfigurationException("maxPayloadBytes must be 1..64 MiB, was " + maxPayloadBytes);
            }
            Objects.requireNonNull(lease, "lease");
            Objects.requireNonNull(retry, "retry");
        }

        /** The defaults. */
        public static Options defaults() {
            return new Options(
                    1024 * 1024,
                    true,
                    Duration.ofMinutes(1),
                    RetryPolicy.exponential(Duration.ofSeconds(1), 2.0)
                            .maxDelay(Duration.ofMinutes(10))
                            .maxAttempts(20));
        }

        /** With another payload limit. */
        public Options maxPayloadBytes(int bytes) {
            return new Options(bytes, orderedPerKey, lease, retry);
        }

        /** With or without per-key ordering. */
        public Options orderedPerKey(boolean ordered) {
            return new Options(maxPayloadBytes, ordered, lease, retry);
        }

        /** With another lease. */
        public Options lease(Duration lease) {
            return new Options(maxPayloadBytes, orderedPerKey, lease, retry);
        }

        /** With another retry policy. */
        public Options retry(RetryPolicy retry) {
            return new Options(maxPayloadBytes, orderedPerKey, lease, retry);
        }
    }

    private static final SecureRandom RANDOM = new SecureRandom();

    private final Engine engine;
    private final String table;
    private final Options options;
    private final ClaimQueue<Status> queue;
    /** The queue an enqueue wakes: the outbox's own. */
    private final List<String> wokenQueues;

    private final BlockedKeys<Status> keys;
    private final OutboxStatements statements;
    private final boolean utcWallClock;

    Outbox(Engine engine, String table, Options options) {
        this.engine = engine;
        this.utcWallClock = engine.dialect().sql().clockIsUtcWallClock();
        this.table = table;
        this.options = Objects.requireNonNull(options, "options");
        Dialect d = engine.dialect();
        this.statements = new OutboxStatements(d, table);
        ClaimQueueBuilder<Status> b = new ClaimQueueBuilder<Status>(engine, "outbox:" + table)
                .table(table)
                .claim("status", Status.MACHINE, Status.PENDING, Status.PROCESSING)
                .deadState(Status.DEAD)
                .select("topic", "msg_key", "dedup_key", "headers", "payload", "created_at")
                .lease(options.lease())
                .retry(options.retry())
                .ageColumn("created_at");
        if (options.orderedPerKey()) {
            b.orderedPerKey("msg_key");
        }
        this.queue = b.build();
        this.wokenQueues = List.of(queue.name());
        this.keys = queue.blockedKeys();
        if (d.traits().failedStatementAbortsTransaction() && statements.noInsertIfAbsent()) {
            throw new UnsupportedDatabaseException("dialect " + d.name() + " aborts a transaction on a duplicate"
                    + " but renders no insert-if-absent: the outbox would break callers' transactions");
        }
        List<String> problems;
        try {
            problems = d.diagnostics().storageProblems(engine.dataSource(), options.maxPayloadBytes());
        } catch (SQLException e) {
            throw new DataAccessException("check how " + d.name() + " stores values", e);
        }
        if (!problems.isEmpty()) {
            throw new ConfigurationException("outbox " + table + ": " + String.join("; ", problems));
        }
        OwnTableUpgrades.require(engine, OwnTable.OUTBOX, table);
    }

    /** The table. */
    public String table() {
        return table;
    }

    /** The options. */
    public Options options() {
        return options;
    }

    /**
     * The SQL {@code enqueue} runs, rendered once for this table: the insert of a message, the insert-if-absent of a
     * message with a dedup key, and the read of a receipt after a lost connection. For review and exact-text tests.
     */
    public List<String> sql() {
        return statements.sql();
    }

    /** The claim queue dispatchers take messages from (for health, verify, and custom workers). */
    public ClaimQueue<Status> queue() {
        return queue;
    }

    /**
     * Stores a message in the caller's transaction (or, on an autocommit connection, at once). Never commits.
     *
     * @return {@link EnqueueResult.Enqueued} with the id, or {@link EnqueueResult.Duplicate} when a message with the
     *     same dedup key exists (the caller's transaction stays usable)
     * @throws PayloadTooLargeException if the payload is over {@link Options#maxPayloadBytes} (before any SQL)
     * @throws IllegalKeyException for an empty, blank or over-long topic, key or dedup key (before any SQL)
     */
    public EnqueueResult enqueue(Connection connection, Message message) {
        Objects.requireNonNull(connection, "connection");
        check(message);
        Message m = withHeaders(message);
        try {
            return insert(connection, m, RANDOM.nextLong());
        } catch (SQLException e) {
            throw new DataAccessException("enqueue into outbox " + table, e);
        }
    }

    /**
     * Stores a message in its own transaction on the data source, retrying transient failures. The insert carries a
     * random receipt; when the connection is lost after the insert was sent, the retry looks for the receipt first, so
     * a message the lost attempt stored is reported {@code Enqueued} with its id and never stored twice.
     *
     * @return {@link EnqueueResult.Enqueued} with the id, or {@link EnqueueResult.Duplicate} when a message with the
     *     same dedup key was stored by another call
     * @throws PayloadTooLargeException if the payload is over {@link Options#maxPayloadBytes} (before any SQL)
     * @throws IllegalKeyException for an empty, blank or over-long topic, key or dedup key (before any SQL)
     * @throws DataAccessException on a database failure that outlasted the transient retries
     */
    public EnqueueResult enqueue(Message message) {
        check(message);
        Message m = withHeaders(message);
        String operation = "enqueue into outbox " + table;
        long receipt = RANDOM.nextLong();
        EnqueueResult r = engine.tx().joinOr(operation, c -> enqueue(c, message), () -> engine.tx()
                .autocommit(operation, c -> insert(c, m, receipt), c -> insertAfterLostReply(c, m, receipt)));
        if (r instanceof EnqueueResult.Enqueued) {
            engine.wakeups().wakeAfterCommit(wokenQueues);
        }
        if (r instanceof EnqueueResult.Enqueued e && engine.events().hasListeners()) {
            // at once, or after the host's transaction commits when the enqueue joined one (never on its rollback)
            engine.events().fire(l -> l.onEnqueued(table, m.topic(), e.id()));
        }
        return r;
    }

    /** The message with the headers the interceptors add (trace context); headers it has are kept. */
    private Message withHeaders(Message message) {
        Message m = message;
        for (BatonInterceptor i : engine.interceptors()) {
            for (Map.Entry<String, String> h : i.enqueueHeaders(table, message).entrySet()) {
                if (!m.headers().containsKey(h.getKey())) {
                    m = m.header(h.getKey(), h.getValue());
                }
            }
        }
        return m;
    }

    /**
     * Applies a guarded transition and, only if it was {@link TransitionResult.Applied}, enqueues the message, in one
     * transaction on the data source: a duplicate callback ({@code AlreadyInTarget}) enqueues nothing, and a failure
     * leaves neither. Transient failures retry the pair. The message carries a random receipt: when the connection is
     * lost after the commit was sent, the retry reads it back, so a pair the lost attempt committed is reported
     * {@link TransitionResult.Applied} and never run twice, and a pair it did not commit runs again.
     *
     * @return the transition's result; {@link TransitionResult.InDoubt} only when, after a lost connection, the row is
     *     in the target state and no message carries this call's receipt (another call moved it, or this call's
     *     message met an existing one with the same dedup key)
     */
    public <S extends Enum<S>> TransitionResult<S> transitionAndEnqueue(Transition<S> transition, Message message) {
        Objects.requireNonNull(transition, "transition");
        check(message);
        Message m = withHeaders(message);
        String operation = "transition and enqueue into outbox " + table;
        long receipt = RANDOM.nextLong();
        long[] enqueued = {-1};
        List<TransitionResult<S>> last = new ArrayList<>(1); // the attempt that committed, for the wait after it
        SqlWork<TransitionResult<S>> work = c -> kept(last, transitionAndInsert(c, transition, m, receipt, enqueued));
        CommitWait wait = engine.commitWait();
        String[] notDurable = {null};
        TransitionResult<S> committed = engine.tx()
                .joinOr(operation, c -> transitionThenEnqueue(c, transition, message, enqueued), () -> engine.tx()
                        .transaction(
                                operation,
                                work,
                                c -> kept(last, transitionAndInsertAfterLostReply(c, transition, m, receipt, enqueued)),
                                c -> notDurable[0] = last.get(0).inTarget()
                                        ? wait.await(c, engine.dialect().diagnostics())
                                        : null));
        TransitionResult<S> result = wait.settle(engine.events(), operation, committed, notDurable[0]);
        if (committed instanceof TransitionResult.Applied<S>) {
            engine.wakeups().wakeAfterCommit(transition.wokenQueues());
            transition.audit();
            if (enqueued[0] >= 0) {
                engine.wakeups().wakeAfterCommit(wokenQueues);
            }
        }
        if (engine.events().hasListeners()) {
            engine.events().fire(l -> l.onTransition(transition.table(), result));
            if (committed instanceof TransitionResult.Applied<S> && enqueued[0] >= 0) {
                engine.events().fire(l -> l.onEnqueued(table, m.topic(), enqueued[0]));
            }
        }
        return result;
    }

    /** {@code r}, kept as the only element of {@code last}. */
    private static <S extends Enum<S>> TransitionResult<S> kept(List<TransitionResult<S>> last, TransitionResult<S> r) {
        last.clear();
        last.add(r);
        return r;
    }

    /**
     * Like {@link #transitionAndEnqueue(Transition, Message)}, on the caller's connection and inside its transaction:
     * the transition as {@link Transition#apply(Connection)} runs it, then, only if it was
     * {@link TransitionResult.Applied}, the message as {@link #enqueue(Connection, Message)} stores it. A rollback of
     * the caller's transaction undoes both. Never commits, rolls back or retries; fires no listeners.
     *
     * @return the transition's result
     * @throws PayloadTooLargeException if the payload is over {@link Options#maxPayloadBytes} (before any SQL)
     * @throws IllegalKeyException for an empty, blank or over-long topic, key or dedup key (before any SQL)
     * @throws DataAccessException on a database failure (the caller decides about its transaction)
     */
    public <S extends Enum<S>> TransitionResult<S> transitionAndEnqueue(
            Connection connection, Transition<S> transition, Message message) {
        Objects.requireNonNull(connection, "connection");
        Objects.requireNonNull(transition, "transition");
        check(message);
        return transitionThenEnqueue(connection, transition, message, new long[] {-1});
    }

    /** The caller's-connection form of transition-and-enqueue; the id of a stored message goes to {@code enqueued}. */
    private <S extends Enum<S>> TransitionResult<S> transitionThenEnqueue(
            Connection connection, Transition<S> transition, Message message, long[] enqueued) {
        TransitionResult<S> r = transition.apply(connection);
        if (r instanceof TransitionResult.Applied<S>
                && enqueue(connection, message) instanceof EnqueueResult.Enqueued e) {
            enqueued[0] = e.id();
        }
        return r;
    }

    /**
     * Starts the configuration of a dispatcher: a worker over this outbox's queue whose handler calls {@code sink};
     * a message is marked delivered when the sink returns, retried with backoff when it throws, dead after the last
     * attempt.
     */
    public Worker.Builder<Status> dispatcher(Sink sink) {
        Objects.requireNonNull(sink, "sink");
        return new Worker.Builder<>(queue).messages(this::toMessage).handle(row -> {
            OutboxMessage message = toMessage(row);
            sink.deliver(message);
            if (engine.events().hasListeners()) {
                Instant created = instant(row.get("created_at"), utcWallClock);
                engine.events().fire(l -> l.onDelivered(table, message, created));
            }
            return Outcome.complete(Status.DELIVERED);
        });
    }

    /** {@code created_at} as an instant ({@link DatabaseClock#instant}); null for a type not read. */
    static @Nullable Instant instant(@Nullable Object createdAt, boolean utcWallClock) {
        return DatabaseClock.instant(createdAt, utcWallClock); // never fail a delivery the sink already accepted
    }

    /** Reads a claimed row as a message. */
    public OutboxMessage toMessage(ClaimedRow<Status> row) {
        return new OutboxMessage(
                row.longId(),
                row.get("topic", String.class),
                row.get("msg_key", String.class),
                row.get("dedup_key", String.class),
                decodeHeaders(row.get("headers", String.class)),
                bytes(row.get("payload")),
                row.attempt());
    }

    // Dead messages and the keys they hold: what an operator lists, counts and requeues (bounded, guarded).

    /**
     * The operator's view of the dead messages as queue rows: count, requeue one or a bounded number, guarded by the
     * dead state (of two operators exactly one requeues a message), due at once with {@code attempts = 0}; the last
     * error is kept until the next attempt ({@link DeadLetters}). {@link #deadMessages} lists them as messages.
     *
     * <p>With per-key ordering (the default), a dead message keeps holding its key: later messages of the key wait
     * behind it until it is requeued (then it is delivered first, and the order per key is kept) or deleted ({@link
     * #keys()} lists the keys held). Fix the cause, then requeue, and the key moves on in enqueue order.
     */
    public DeadLetters<Status> deadLetters() {
        return queue.deadLetters();
    }

    /** The keys whose later messages wait behind a dead message (per-key ordering; else none): {@link BlockedKeys}. */
    public BlockedKeys<Status> keys() {
        return keys;
    }

    /**
     * Messages in the dead state, oldest (lowest id) first, at most {@code limit}, each with the reason kept from its
     * last attempt. Page with {@link #deadMessagesAfter}. Thread-safe.
     *
     * @throws ConfigurationException if {@code limit} is outside 1..1000 (before any SQL)
     */
    public List<DeadMessage> deadMessages(int limit) {
        return deadMessages(queue.deadLetters().list(limit));
    }

    /**
     * Messages in the dead state with an id greater than {@code afterId}, lowest id first, at most {@code limit}.
     *
     * @throws ConfigurationException if {@code limit} is outside 1..1000 (before any SQL)
     */
    public List<DeadMessage> deadMessagesAfter(long afterId, int limit) {
        return deadMessages(queue.deadLetters().listAfter(afterId, limit));
    }

    private static List<DeadMessage> deadMessages(List<DeadRow> rows) {
        List<DeadMessage> out = new ArrayList<>(rows.size());
        for (DeadRow r : rows) {
            OutboxMessage m = new OutboxMessage(
                    r.longId(),
                    r.get("topic", String.class),
                    r.get("msg_key", String.class),
                    r.get("dedup_key", String.class),
                    decodeHeaders(r.get("headers", String.class)),
                    bytes(r.values().get("payload")),
                    r.attempts());
            out.add(new DeadMessage(m, r.lastError()));
        }
        return out;
    }

    /**
     * Deletes delivered messages created more than {@code age} ago (database clock), {@value #PURGE_BATCH} rows per
     * statement, each in its own transaction, until none is left.
     *
     * @param age at least {@link #MIN_PURGE_AGE}
     * @return rows deleted and statements run; {@link BulkResult#countInDoubt()} when a statement's reply was lost: it
     *     may have committed, its retry deleted what was left, and the rows it deleted are missing from the count (a
     *     lower bound then; every old delivered message is still gone)
     * @throws ConfigurationException if {@code age} is under {@link #MIN_PURGE_AGE} (before any SQL)
     */
    public BulkResult purgeDelivered(Duration age) {
        Objects.requireNonNull(age, "age");
        if (age.compareTo(MIN_PURGE_AGE) < 0) {
            throw new ConfigurationException("purgeDelivered(" + age + "): the age must be at least " + MIN_PURGE_AGE
                    + "; an enqueue retrying after a lost reply looks for its message, and a message purged younger"
                    + " than that could be stored twice");
        }
        return statements.purge(engine, Status.DELIVERED.code(), age, PURGE_BATCH);
    }

    private void check(Message m) {
        Objects.requireNonNull(m, "message");
        KeyText.check("topic", m.topic(), KeyText.COLUMN_LENGTH);
        if (m.key() != null) {
            KeyText.check("key", m.key(), KeyText.COLUMN_LENGTH);
        }
        if (m.dedupKey() != null) {
            KeyText.check("dedupKey", m.dedupKey(), KeyText.COLUMN_LENGTH);
        }
        if (m.payloadSize() > options.maxPayloadBytes()) {
            throw new PayloadTooLargeException("payload", m.payloadSize(), options.maxPayloadBytes());
        }
    }

    /**
     * The retry of {@link #transitionAndEnqueue(Transition, Message)} after a lost connection: the lost attempt may
     * have committed the pair, and then its message carries this call's receipt. A message with the receipt means the
     * pair committed: {@link TransitionResult.Applied}. Otherwise the pair runs again; should the transition now find
     * the row in the target state (the lost attempt was still committing, and the row's lock made this one wait), the
     * receipt is read once more, and a row in the target without it is in doubt.
     */
    private <S extends Enum<S>> TransitionResult<S> transitionAndInsertAfterLostReply(
            Connection c, Transition<S> transition, Message message, long receipt, long[] enqueued)
            throws SQLException {
        OptionalLong stored = statements.idOfReceipt(c, receipt);
        if (stored.isEmpty()) {
            TransitionResult<S> r = transitionAndInsert(c, transition, message, receipt, enqueued);
            if (!(r instanceof TransitionResult.AlreadyInTarget<S>)) {
                return r;
            }
            stored = statements.idOfReceipt(c, receipt);
            if (stored.isEmpty()) {
                return Transition.inDoubt(r);
            }
        }
        enqueued[0] = stored.getAsLong();
        return transition.applied();
    }

    private <S extends Enum<S>> TransitionResult<S> transitionAndInsert(
            Connection c, Transition<S> transition, Message message, long receipt, long[] enqueued)
            throws SQLException {
        enqueued[0] = -1;
        TransitionResult<S> r = transition.execute(c);
        if (r instanceof TransitionResult.Applied<S>) {
            engine.wakeups().notifyIn(c, transition.wokenQueues());
            EnqueueResult e = insert(c, message, receipt);
            if (e instanceof EnqueueResult.Enqueued stored) {
                enqueued[0] = stored.id();
            }
            if (e instanceof EnqueueResult.Duplicate) {
                // the transition applied but its announcement exists: keep both consistent, report the state
                return r;
            }
        } else if (r instanceof TransitionResult.Conflict<S>) {
            c.rollback(); // PostgreSQL aborted the transaction; nothing to keep
        }
        return r;
    }

    /**
     * The retry of an enqueue whose connection was lost: the first attempt may have stored the message, with this
     * call's receipt. A row with the receipt is this call's message. Otherwise the insert runs again; should it meet
     * the receipt (the lost attempt's insert was still running and committed meanwhile: the unique index on the
     * receipt made this one wait for it) or the dedup key, the receipt is read once more, and a dedup key stored
     * without it is another call's message.
     */
    private EnqueueResult insertAfterLostReply(Connection c, Message m, long receipt) throws SQLException {
        OptionalLong stored = statements.idOfReceipt(c, receipt);
        if (stored.isPresent()) {
            return new EnqueueResult.Enqueued(stored.getAsLong());
        }
        EnqueueResult r = null;
        try {
            r = insert(c, m, receipt);
        } catch (SQLException e) {
            if (engine.dialect().diagnostics().classify(e).kind() != SqlError.Kind.UNIQUE_VIOLATION) {
                throw e;
            }
        }
        if (r instanceof EnqueueResult.Enqueued) {
            return r;
        }
        stored = statements.idOfReceipt(c, receipt);
        if (stored.isPresent()) {
            return new EnqueueResult.Enqueued(stored.getAsLong());
        }
        if (r != null) {
            return r; // a Duplicate: the message with this dedup key is another call's
        }
        throw new DataAccessException("enqueue into outbox " + table + ": the retry after a lost connection met a"
                + " unique index, yet no message carries this call's receipt");
    }

    private EnqueueResult insert(Connection c, Message m, long receipt) throws SQLException {
        OptionalLong id = statements.insert(
                c,
                m.topic(),
                m.key(),
                m.payloadUnsafe(),
                m.headers().isEmpty() ? null : encodeHeaders(m.headers()),
                m.dedupKey(),
                Status.PENDING.code(),
                receipt);
        if (id.isEmpty()) {
            return new EnqueueResult.Duplicate(m.dedupKey());
        }
        engine.wakeups().notifyIn(c, wokenQueues); // in the insert's transaction, or right after its commit
        return new EnqueueResult.Enqueued(id.getAsLong());
    }

    private static byte[] bytes(Object value) {
        if (value instanceof byte[] b) {
            return b;
        }
        if (value instanceof java.sql.Blob blob) {
            try {
                return blob.getBytes(1, (int) blob.length());
            } catch (SQLException e) {
                throw new DataAccessException("read outbox payload", e);
            }
        }
        throw new DataAccessException("outbox payload has an unexpected type " + value);
    }

    /** Headers as lines of {@code name=value}, with {@code %}, {@code =} and line breaks percent-encoded. */
    static String encodeHeaders(Map<String, String> headers) {
        StringBuilder sb = new StringBuilder();
        for (Map.Entry<String, String> e : headers.entrySet()) {
            sb.append(escape(e.getKey()))
                    .append('=')
                    .append(escape(e.getValue()))
                    .append('\n');
        }
        return sb.toString();
    }

    static Map<String, String> decodeHeaders(String text) {
        Map<String, String> out = new LinkedHashMap<>();
        if (text == null || text.isEmpty()) {
            return out;
        }
        for (String line : text.split("\n")) {
            int eq = line.indexOf('=');
            out.put(unescape(line.substring(0, eq)), unescape(line.substring(eq + 1)));
        }
        return out;
    }

    private static String escape(String s) {
        return s.replace("%", "%25").replace("=", "%3D").replace("\n", "%0A").replace("\r", "%0D");
    }

    private static String unescape(String s) {
        return s.replace("%0D", "\r").replace("%0A", "\n").replace("%3D", "=").replace("%25", "%");
    }
}
