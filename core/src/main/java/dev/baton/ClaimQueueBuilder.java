package dev.baton;

import dev.baton.internal.Engine;
import dev.baton.internal.queue.LeaseTiming;
import dev.baton.internal.queue.QueueColumns;
import dev.baton.internal.queue.QueueDefinition;
import dev.baton.internal.queue.QueueStates;
import dev.baton.internal.queue.SendProtocol;
import dev.baton.internal.values.Identifiers;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * Collects the definition of a {@link ClaimQueue}; made by {@link Baton#queue(String)}. Not thread-safe;
 * {@link #build()} validates and snapshots it.
 *
 * @param <S> the enum of states
 */
public final class ClaimQueueBuilder<S extends Enum<S>> {
    private final Engine engine;
    private final String name;
    private String table;
    private String idColumn = "id";
    private String stateColumn;
    private StateMachine<S> machine;
    private S claimable;
    private S processing;
    private S dead;
    private S sending;
    private S unknown;
    private final List<Condition> eligible = new ArrayList<>();
    private final List<String> orderBy = new ArrayList<>();
    private final List<String> select = new ArrayList<>();
    private Duration lease = Duration.ofMinutes(5);
    private Duration sendTimeout;
    private RetryPolicy retry =
            RetryPolicy.exponential(Duration.ofSeconds(5), 2.0).maxAttempts(10);
    private String leaseColumn = "lease_until";
    private String tokenColumn = "claim_token";
    private String attemptsColumn = "attempts";
    private String nextAttemptColumn = "next_attempt_at";
    private String errorColumn = "last_error";
    private String ageColumn;
    private String orderKeyColumn;
    private String keyLimitColumn;
    private int keyLimit;
    private String groupColumn;
    private GroupWeights groupWeights = GroupWeights.none();
    private String priorityColumn;
    private RateLimit rateLimit;
    private SendDurability sendDurability = SendDurability.OFF;
    private Duration sendDurabilityWait = Duration.ZERO;

    ClaimQueueBuilder(Engine engine, String name) {
        this.engine = engine;
        this.name = Objects.requireNonNull(name, "name");
        if (name.isBlank() || name.length() > 100) {
            throw new ConfigurationException("queue name must be 1..100 characters and not blank, was '" + name + "'");
        }
    }

    /** The host table ({@code table} or {@code schema.table}). */
    public ClaimQueueBuilder<S> table(String table) {
        Identifiers.quoteTable(engine.dialect(), table);
        this.table = table;
        return this;
    }

    /** The id column (default {@code id}); primary key or unique. */
    public ClaimQueueBuilder<S> id(String column) {
        this.idColumn = Identifiers.check(column);
        return this;
    }

    /**
     * The state column, its machine, and the claim transition {@code claimable → processing} (e.g. PENDING →
     * PROCESSING), which the machine must allow, with a way back ({@code processing → claimable}) for retries,
     * releases and reclaims.
     */
    @SuppressWarnings("unchecked")
    public <T extends Enum<T>> ClaimQueueBuilder<T> claim(
            String column, StateMachine<T> machine, T claimable, T processing) {
        ClaimQueueBuilder<T> self = (ClaimQueueBuilder<T>) this;
        self.stateColumn = Identifiers.check(column);
        self.machine = Objects.requireNonNull(machine, "machine");
        self.claimable = Objects.requireNonNull(claimable, "claimable");
        self.processing = Objects.requireNonNull(processing, "processing");
        return self;
    }

    /** Guards that make a claimable row eligible (all must hold), e.g. {@code orders.is(PAID)}. */
    public ClaimQueueBuilder<S> eligibleWhen(Condition... conditions) {
        for (Condition c : conditions) {
            eligible.add(Objects.requireNonNull(c, "condition"));
        }
        return this;
    }

    /** Claim order (default: the id column ascending). An index must serve it. */
    public ClaimQueueBuilder<S> orderBy(String... columns) {
        for (String c : columns) {
            orderBy.add(Identifiers.check(c));
        }
        return this;
    }

    /** Columns to read with each claimed row ({@link ClaimedRow#get}). */
    public ClaimQueueBuilder<S> select(String... columns) {
        for (String c : columns) {
            select.add(Identifiers.check(c));
        }
        return this;
    }

    /** The state rows go to after the last attempt or on {@link Outcome#deadLetter}; required. */
    public ClaimQueueBuilder<S> deadState(S state) {
        this.dead = Objects.requireNonNull(state, "state");
        return this;
    }

    /**
     * Declares the sink non-idempotent: {@link ClaimQueue#markSending} commits {@code processing → sending}
     * before the external call; a row whose lease expires while sending moves to {@code unknown} instead of being
     * sent again, and waits for {@link UnknownSends} ({@link ClaimQueue#unknownSends()}).
     */
    public ClaimQueueBuilder<S> nonIdempotentSink(S sending, S unknown) {
        this.sending = Objects.requireNonNull(sending, "sending");
        this.unknown = Objects.requireNonNull(unknown, "unknown");
        return this;
    }

    /**
     * Whether {@link ClaimQueue#markSending} waits until a standby has the SENDING mark before it returns (default
     * {@link SendDurability#OFF}): with {@link SendDurability#REQUIRE} a send starts only once a failover could not
     * lose its mark, so a failover never makes it twice; with {@link SendDurability#WARN} it waits as long, then logs
     * and sends. Needs {@link #nonIdempotentSink}.
     *
     * @param policy off, warn or require
     * @param maxWait how long one mark may wait for a standby, 1 ms to 1 min (ignored for {@code OFF})
     * @throws ConfigurationException if {@code maxWait} is out of range
     */
    public ClaimQueueBuilder<S> sendDurability(SendDurability policy, Duration maxWait) {
        Objects.requireNonNull(policy, "policy");
        Objects.requireNonNull(maxWait, "maxWait");
        if (policy != SendDurability.OFF
                && (maxWait.compareTo(Duration.ofMillis(1)) < 0 || maxWait.compareTo(Duration.ofMinutes(1)) > 0)) {
            throw new ConfigurationException(
                    "sendDurability maxWait must be 1 ms to 1 min, was " + maxWait + " (queue '" + name + "')");
        }
        this.sendDurability = policy;
        this.sendDurabilityWait = maxWait;
        return this;
    }

    /**
     * The longest a send of a non-idempotent sink may take ({@link #nonIdempotentSink}): the time the handler's client
     * gets for one call ({@link ClaimedRow#sendTimeLeft()}), which {@link ClaimQueue#markSending} requires to be left
     * before the claim's local deadline, and part of the quarantine before an unknown send is offered for
     * reconciliation ({@link UnknownSends#ready(int)}). Default: a quarter of the lease, at most 1 minute. Must be
     * positive and below half the lease ({@link #build()} checks it, whichever is set first).
     *
     * @throws ConfigurationException if not positive (the comparison with the lease is made by {@link #build()})
     */
    public ClaimQueueBuilder<S> sendTimeout(Duration timeout) {
        Objects.requireNonNull(timeout, "timeout");
        if (timeout.isZero() || timeout.isNegative()) {
            throw new ConfigurationException(
                    "sendTimeout must be positive, was " + timeout + " (queue '" + name + "')");
        }
        this.sendTimeout = timeout;
        return this;
    }

    /** How long a claim holds a row (default 5 minutes), measured by the database clock; 1 s to 24 h. */
    public ClaimQueueBuilder<S> lease(Duration lease) {
        Objects.requireNonNull(lease, "lease");
        if (lease.compareTo(Duration.ofSeconds(1)) < 0 || lease.compareTo(Duration.ofHours(24)) > 0) {
            throw new ConfigurationException(
                    "lease must be between 1 s and 24 h, was " + lease + " (queue '" + name + "')");
        }
        this.lease = lease;
        return this;
    }

    /** Backoff between attempts and the attempts before the dead state (default 5 s doubling, 10 attempts). */
    public ClaimQueueBuilder<S> retry(RetryPolicy policy) {
        this.retry = Objects.requireNonNull(policy, "policy");
        return this;
    }

    /** Renames the bookkeeping columns (defaults: lease_until, claim_token, attempts, next_attempt_at, last_error). */
    public ClaimQueueBuilder<S> columns(String lease, String token, String attempts, String nextAttempt, String error) {
        this.leaseColumn = Identifiers.check(lease);
        this.tokenColumn = Identifiers.check(token);
        this.attemptsColumn = Identifiers.check(attempts);
        this.nextAttemptColumn = Identifiers.check(nextAttempt);
        this.errorColumn = Identifiers.check(error);
        return this;
    }

    /**
     * Claims rows that share a value of {@code keyColumn} one at a time, in id order: a row is not claimed while an
     * earlier row with the same key is claimable (even if waiting for a retry), being processed or sent, unknown, or
     * dead (a dead row holds its key until it is requeued or deleted: see {@link DeadLetters#requeue}). Rows with a
     * NULL key are not ordered. Needs an index on {@code (keyColumn, id)}. Order follows ids, so it holds for rows
     * of one key written one after another (as an aggregate's row lock makes them), not for concurrent writers.
     */
    public ClaimQueueBuilder<S> orderedPerKey(String keyColumn) {
        this.orderKeyColumn = Identifiers.check(keyColumn);
        return this;
    }

    /** The most rows of one key {@link #concurrencyPerKey} allows: 1000. */
    static final int MAX_KEY_LIMIT = 1000;

    /**
     * Holds at most {@code limit} rows of one value of {@code keyColumn} at once: a claim passes over a row whose key
     * already has {@code limit} rows being processed or sent, and takes at most that many rows of one key per batch.
     * Unlike {@link #orderedPerKey} it keeps no order between the rows of a key (use that for {@code limit} 1 in id
     * order). Rows with a NULL key are not limited. The limit holds across threads and processes: the claims of such a
     * queue take an exclusive lock of the database (PostgreSQL {@code pg_advisory_xact_lock}, MariaDB/MySQL {@code
     * GET_LOCK}, SQL Server {@code sp_getapplock}) named after the queue, so they run one after another; each claim
     * also ranks every eligible row (a window function), so its cost grows with the backlog.
     *
     * @param keyColumn the key column, e.g. {@code customer_id}
     * @param limit 1 to 1000
     * @throws InvalidIdentifierException if the column is not a plain identifier
     * @throws ConfigurationException if {@code limit} is out of range
     */
    public ClaimQueueBuilder<S> concurrencyPerKey(String keyColumn, int limit) {
        String column = Identifiers.check(keyColumn);
        if (limit < 1 || limit > MAX_KEY_LIMIT) {
            throw new ConfigurationException("concurrencyPerKey limit must be 1.." + MAX_KEY_LIMIT + ", was " + limit
                    + " (queue '" + name + "')");
        }
        this.keyLimitColumn = column;
        this.keyLimit = limit;
        return this;
    }

    /**
     * Serves the values of {@code groupColumn} (e.g. a tenant) round-robin: a claim of {@code n} rows takes the first
     * eligible row of every group that has one, then the second of each, and so on, in the queue's order within a
     * group; so a group with ten rows is served while another has a million waiting. A claim reads the queue group by
     * group through an index with the group before the queue's order ({@link ClaimQueue#suggestedIndex()}), ranking at
     * most the first 4 × n rows of each group, and picks and locks the best-ranked rows as any claim does ({@code SKIP
     * LOCKED}): claims run side by side (with a priority or a per-key limit as well, each claim ranks every eligible
     * row instead, so its cost grows with the backlog). Every group has weight 1: see {@link #fairAcross(String,
     * GroupWeights)}.
     *
     * @param groupColumn the group column
     * @throws InvalidIdentifierException if the column is not a plain identifier
     */
    public ClaimQueueBuilder<S> fairAcross(String groupColumn) {
        return fairAcross(groupColumn, GroupWeights.none());
    }

    /**
     * Serves the values of {@code groupColumn} round-robin as {@link #fairAcross(String)} does, with a weight per group:
     * in each turn a group of weight {@code w} takes up to {@code w} rows (in the queue's order) where a group without a
     * weight takes one, and the rows of one turn are claimed in the queue's order. A group that has fewer rows than its
     * weight takes what it has and gives no turn of its own to the others.
     *
     * <pre>{@code
     * .fairAcross("tenant_id", GroupWeights.of(Map.of("gold", 3))) // gold: 3 rows per turn, every other tenant 1
     * }</pre>
     *
     * @param groupColumn the group column
     * @param weights the weights of some groups ({@link GroupWeights#none()} for none)
     * @throws InvalidIdentifierException if the column is not a plain identifier
     */
    public ClaimQueueBuilder<S> fairAcross(String groupColumn, GroupWeights weights) {
        this.groupColumn = Identifiers.check(groupColumn);
        this.groupWeights = Objects.requireNonNull(weights, "weights");
        return this;
    }

    /**
     * Claims rows with a higher value of {@code priorityColumn} first, in the queue's order (default: id) among rows of
     * one priority. The claim index ({@link ClaimQueue#suggestedIndex()}) then has the priority column, descending,
     * before the order; {@link ClaimQueue#verify()} refuses a table without an index that serves it, and a nullable
     * column (a NULL has no rank: PostgreSQL claims it first, MySQL last); {@link ClaimQueue#createTableSql} makes it
     * {@code NOT NULL DEFAULT 0}. There is no aging: while higher-priority rows keep arriving faster than they are
     * handled, lower ones wait.
     *
     * @param priorityColumn a numeric, NOT NULL column
     * @throws InvalidIdentifierException if the column is not a plain identifier
     */
    public ClaimQueueBuilder<S> priority(String priorityColumn) {
        this.priorityColumn = Identifiers.check(priorityColumn);
        return this;
    }

    /**
     * At most {@code rowsPerSecond} rows claimed per second from this queue across all threads and processes, in
     * bursts of up to {@code burst} after a quiet time; the buckets in {@value RateLimit#DEFAULT_TABLE} (see {@link
     * #rateLimit(RateLimit)}).
     *
     * @throws ConfigurationException if the rate or the burst is out of range
     */
    public ClaimQueueBuilder<S> rateLimit(int rowsPerSecond, int burst) {
        return rateLimit(RateLimit.perSecond(rowsPerSecond, burst));
    }

    /**
     * Limits the rows claimed per second from this queue across all threads and processes: a token bucket held by
     * the database, by its clock, in the row of the queue's name in {@link RateLimit#table()} (create the table with
     * {@link OwnTables#createRateLimitsTable} or the dialect's {@code V9__baton_rate_limits.sql}; {@link
     * ClaimQueue#verify()} checks it is there). Each claim locks the queue's bucket row, claims at most the whole
     * tokens it holds, and takes exactly the rows it claimed, in one transaction: a claim that rolls back takes none,
     * and queues of the same name share a bucket. The row lock makes the claims of the queue run one after another,
     * across processes (handlers and completions do not); a {@link Worker} whose claim the limit cut waits until its
     * batch's tokens are there instead of polling.
     *
     * @param limit the rate, the burst and the table
     * @throws UnsupportedDatabaseException at {@link #build()} if the dialect cannot read its clock as a number
     */
    public ClaimQueueBuilder<S> rateLimit(RateLimit limit) {
        this.rateLimit = Objects.requireNonNull(limit, "limit");
        return this;
    }

    /** A timestamp column (e.g. {@code created_at}) whose minimum over eligible rows gives the backlog's age. */
    public ClaimQueueBuilder<S> ageColumn(String column) {
        this.ageColumn = Identifiers.check(column);
        return this;
    }

    /**
     * A reconciler resolves an unknown send as sent (a completion state), not sent (the claimable state) or given up
     * (the dead state): without those moves the machine builds fine and every reconciliation fails later, row by row.
     */
    private void checkUnknownExits() {
        List<String> missing = new ArrayList<>();
        if (!machine.canTransition(unknown, claimable)) {
            missing.add(unknown + " -> " + claimable + " (not sent: send again)");
        }
        boolean completes = false;
        for (S s : machine.states()) {
            if (s != claimable
                    && s != dead
                    && s != processing
                    && s != sending
                    && s != unknown
                    && machine.canTransition(unknown, s)) {
                completes = true;
            }
        }
        if (!completes) {
            missing.add(unknown + " -> a completion state (sent)");
        }
        if (!machine.canTransition(unknown, dead)) {
            missing.add(unknown + " -> " + dead + " (give up)");
        }
        if (!missing.isEmpty()) {
            throw new ConfigurationException("queue '" + name + "': the machine has no way out of the unknown state "
                    + unknown + " for a reconciler; allow " + String.join(", ", missing));
        }
    }

    /**
     * Validates and builds the queue.
     *
     * @throws ConfigurationException naming what is missing or inconsistent: e.g. a {@link #sendTimeout} not below half
     *     the lease, or a non-idempotent sink whose machine has no way out of the unknown state for a reconciler
     *     (unknown → the claimable state, and unknown → the dead state or another completion state)
     * @throws IllegalTransitionException if the machine does not allow a transition the queue makes
     */
    public ClaimQueue<S> build() {
        if (table == null) {
            throw new ConfigurationException("queue '" + name + "' needs table(...)");
        }
        if (machine == null) {
            throw new ConfigurationException("queue '" + name + "' needs claim(column, machine, from, to)");
        }
        if (dead == null) {
            throw new ConfigurationException("queue '" + name + "' needs deadState(...): a row that always fails"
                    + " must leave the queue instead of blocking it");
        }
        machine.checkTransition(claimable, processing);
        machine.checkTransition(processing, claimable);
        machine.checkTransition(processing, dead);
        Duration send = sendTimeout != null ? sendTimeout : new LeaseTiming(lease).defaultSendTimeout();
        Optional<SendProtocol<S>> protocol;
        if (sending == null) {
            if (sendDurability != SendDurability.OFF) {
                throw new ConfigurationException("queue '" + name + "': sendDurability(" + sendDurability + ") needs"
                        + " nonIdempotentSink(sending, unknown)");
            }
            if (sendTimeout != null) {
                throw new ConfigurationException("queue '" + name + "' sets sendTimeout but has no"
                        + " nonIdempotentSink(...): only a non-idempotent sink's sends are timed");
            }
            protocol = Optional.empty();
        } else {
            machine.checkTransition(processing, sending);
            machine.checkTransition(sending, unknown);
            machine.checkTransition(sending, dead);
            checkUnknownExits();
            protocol = Optional.of(new SendProtocol<>(sending, unknown, send, sendDurability, sendDurabilityWait));
        }
        if (send.multipliedBy(2).compareTo(lease) >= 0) {
            throw new ConfigurationException("sendTimeout " + send + " of queue '" + name + "' must be below half the"
                    + " lease (" + lease + "): a send must be over well before the lease ends, so that a paused or slow"
                    + " sender can be told apart from a finished one");
        }
        Set<String> managed = new HashSet<>();
        for (String c :
                List.of(stateColumn, leaseColumn, tokenColumn, attemptsColumn, nextAttemptColumn, errorColumn)) {
            if (!managed.add(c.toLowerCase(Locale.ROOT))) {
                throw new ConfigurationException("queue '" + name + "' uses column " + c + " for two purposes");
            }
        }
        for (String c : new String[] {keyLimitColumn, groupColumn, priorityColumn}) {
            if (c != null && managed.contains(c.toLowerCase(Locale.ROOT))) {
                throw new ConfigurationException("queue '" + name + "' uses column " + c
                        + " for a key, group or priority and as a column Baton writes");
            }
        }
        if (keyLimitColumn != null && orderKeyColumn != null) {
            throw new ConfigurationException("queue '" + name + "' sets both orderedPerKey(" + orderKeyColumn
                    + ") and concurrencyPerKey(" + keyLimitColumn + ", " + keyLimit + "): choose one (orderedPerKey"
                    + " already holds one row of a key at a time)");
        }
        if (priorityColumn != null && orderBy.stream().anyMatch(o -> o.equalsIgnoreCase(priorityColumn))) {
            throw new ConfigurationException("queue '" + name + "' names " + priorityColumn
                    + " in both priority(...) and orderBy(...): the priority comes first by itself");
        }
        Set<S> distinct = EnumSet.of(claimable, processing, dead);
        if (distinct.size() != 3) {
            throw new ConfigurationException(
                    "queue '" + name + "': claimable, processing and dead states must" + " differ");
        }
        QueueColumns columns = new QueueColumns(
                table,
                idColumn,
                stateColumn,
                leaseColumn,
                tokenColumn,
                attemptsColumn,
                nextAttemptColumn,
                errorColumn,
                ageColumn);
        QueueStates<S> states = new QueueStates<>(machine, claimable, processing, dead);
        QueueDefinition.Claiming claiming =
                new QueueDefinition.Claiming(eligible, orderBy.isEmpty() ? List.of(idColumn) : orderBy, select);
        QueueDefinition.Shaping shaping = new QueueDefinition.Shaping(
                keyLimitColumn, keyLimit, orderKeyColumn, groupColumn, groupWeights, priorityColumn, rateLimit);
        return new ClaimQueue<>(new QueueDefinition<>(
                engine, name, columns, states, claiming, new QueueDefinition.Timing(lease, retry), shaping, protocol));
    }
}
