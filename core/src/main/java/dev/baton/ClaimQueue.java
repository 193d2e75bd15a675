package dev.baton;

import dev.baton.internal.Conditions;
import dev.baton.internal.Engine;
import dev.baton.internal.Identifiers;
import dev.baton.internal.SchemaCheck;
import dev.baton.spi.BatchUpdate;
import dev.baton.spi.BatchUpdateSpec;
import dev.baton.spi.ColumnType;
import dev.baton.spi.Dialect;
import dev.baton.spi.Param;
import dev.baton.spi.SqlFragment;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.ThreadLocalRandom;

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
 * last_error} (text); the names are configurable. {@link #verify()} checks them and that an index serves the claim,
 * printing the DDL to add what is missing.
 *
 * @param <S> the enum of states
 */
public final class ClaimQueue<S extends Enum<S>> {
    /** The largest error text stored with a retry or dead letter; longer texts are cut. */
    public static final int MAX_ERROR_LENGTH = 1000;

    private final Engine engine;
    private final String name;
    private final String table;
    private final String idColumn;
    private final String stateColumn;
    private final StateMachine<S> machine;
    private final S claimable;
    private final S processing;
    private final S dead;
    private final S sending;
    private final S unknown;
    private final List<Condition> eligible;
    private final List<String> orderBy;
    private final List<String> select;
    private final Duration lease;
    private final RetryPolicy retry;
    private final String leaseColumn;
    private final String tokenColumn;
    private final String attemptsColumn;
    private final String nextAttemptColumn;
    private final String errorColumn;
    private final String ageColumn;
    private final SqlFragment pickGuard;

    private final String qTable;
    private final String qId;
    private final String qState;
    private final String qLease;
    private final String qToken;
    private final String qAttempts;
    private final String qNext;
    private final String qError;
    private final SqlFragment claimWhere;
    private final List<String> qOrderBy;
    private final List<String> returning;
    private final List<String> returningBeforeUpdate;
    private final List<S> held;
    private final String heldGuard;
    private final List<Object> heldBinds;
    private final String fence;
    private final ConcurrentMap<Integer, BatchUpdate> claimStatements = new ConcurrentHashMap<>();
    private final ConcurrentMap<String, Fenced> fencedSql = new ConcurrentHashMap<>();
    private final ConcurrentMap<Integer, String> completeAllSql = new ConcurrentHashMap<>();

    private ClaimQueue(Builder<S> b) {
        this.engine = b.engine;
        this.name = b.name;
        this.table = b.table;
        this.idColumn = b.idColumn;
        this.stateColumn = b.stateColumn;
        this.machine = b.machine;
        this.claimable = b.claimable;
        this.processing = b.processing;
        this.dead = b.dead;
        this.sending = b.sending;
        this.unknown = b.unknown;
        this.eligible = List.copyOf(b.eligible);
        this.orderBy = List.copyOf(b.orderBy.isEmpty() ? List.of(b.idColumn) : b.orderBy);
        this.select = List.copyOf(b.select);
        this.lease = b.lease;
        this.retry = b.retry;
        this.leaseColumn = b.leaseColumn;
        this.tokenColumn = b.tokenColumn;
        this.attemptsColumn = b.attemptsColumn;
        this.nextAttemptColumn = b.nextAttemptColumn;
        this.errorColumn = b.errorColumn;
        this.ageColumn = b.ageColumn;

        Dialect d = engine.dialect();
        if (b.orderKeyColumn == null) {
            this.pickGuard = null;
        } else {
            String[] parts = Identifiers.splitTable(table);
            String self = Identifiers.quote(d, parts[parts.length - 1]);
            String key = Identifiers.quote(d, b.orderKeyColumn);
            String id = Identifiers.quote(d, idColumn);
            List<Object> blocking = new ArrayList<>();
            blocking.add(machine.code(claimable));
            blocking.add(machine.code(processing));
            if (sending != null) {
                blocking.add(machine.code(sending));
                blocking.add(machine.code(unknown));
            }
            SqlFragment states = d.sql().stateIn("baton_prior." + Identifiers.quote(d, stateColumn), blocking);
            this.pickGuard = new SqlFragment(
                    "NOT EXISTS (SELECT 1 FROM " + Identifiers.quoteTable(d, table) + " baton_prior WHERE baton_prior."
                            + key + " = " + self + "." + key + " AND baton_prior." + id + " < " + self + "." + id
                            + " AND " + states.sql() + ")",
                    states.binds());
        }
        this.qTable = Identifiers.quoteTable(d, table);
        this.qId = Identifiers.quote(d, idColumn);
        this.qState = Identifiers.quote(d, stateColumn);
        this.qLease = Identifiers.quote(d, leaseColumn);
        this.qToken = Identifiers.quote(d, tokenColumn);
        this.qAttempts = Identifiers.quote(d, attemptsColumn);
        this.qNext = Identifiers.quote(d, nextAttemptColumn);
        this.qError = Identifiers.quote(d, errorColumn);
        List<Condition> where = new ArrayList<>();
        where.add(stateIs(claimable));
        where.addAll(eligible);
        where.add(Condition.due(nextAttemptColumn));
        this.claimWhere = Conditions.and(d, where);
        // The claim orders by the columns its guard fixes to one value, then by the queue's order. The result is the
        // same rows in the same order, but only an index on (state, guards, order) can deliver it without a sort, so
        // the planner takes that index even with statistics taken while most rows were pending, instead of walking
        // the primary key past every completed row (seen on PostgreSQL with stale statistics).
        List<String> order = new ArrayList<>();
        order.add(qState);
        for (Condition c : eligible) {
            if (c instanceof Condition.StateIn s && s.codes().size() == 1) {
                order.add(Identifiers.quote(d, s.column()));
            } else if (c instanceof Condition.Equals e) {
                order.add(Identifiers.quote(d, e.column()));
            }
        }
        for (String o : orderBy) {
            String q = Identifiers.quote(d, o);
            if (!order.contains(q)) {
                order.add(q);
            }
        }
        this.qOrderBy = List.copyOf(order);
        List<String> ret = new ArrayList<>();
        ret.add(qId);
        ret.add(qAttempts);
        for (String s : select) {
            ret.add(Identifiers.quote(d, s));
        }
        this.returning = List.copyOf(ret);
        // The claim changes state, lease, token and attempts (+ 1); other selected columns read the same before it.
        Set<String> changed = Set.of(qState, qLease, qToken, qAttempts);
        List<String> before = new ArrayList<>();
        before.add(qId);
        before.add(qAttempts + " + 1");
        before.addAll(ret.subList(2, ret.size()));
        boolean derivable = ret.subList(2, ret.size()).stream().noneMatch(changed::contains);
        this.returningBeforeUpdate = derivable ? List.copyOf(before) : List.of();
        // the states a claim holds a row in, and the fence of every write under a claim: constant per queue
        this.held = sending == null ? List.of(processing) : List.of(processing, sending);
        List<Object> heldCodes = new ArrayList<>();
        for (S state : held) {
            heldCodes.add(machine.code(state));
        }
        SqlFragment heldIn = d.sql().stateIn(qState, heldCodes);
        this.heldGuard = heldIn.sql();
        this.heldBinds = heldIn.binds();
        this.fence = " WHERE " + qId + " = ? AND " + qToken + " = ? AND " + heldGuard;
    }

    /** The queue's name, used in messages, metrics and idempotency keys. */
    public String name() {
        return name;
    }

    /** The table as configured. */
    public String table() {
        return table;
    }

    /** The state machine of the claim column. */
    public StateMachine<S> machine() {
        return machine;
    }

    /** The lease a claim stamps. */
    public Duration lease() {
        return lease;
    }

    /** The retry policy: backoff between attempts and the number of attempts before the dead state. */
    public RetryPolicy retryPolicy() {
        return retry;
    }

    /** The claimable state (e.g. PENDING). */
    public S claimableState() {
        return claimable;
    }

    /** The processing state (e.g. PROCESSING). */
    public S processingState() {
        return processing;
    }

    /** The dead state. */
    public S deadState() {
        return dead;
    }

    /** The sending state of a non-idempotent sink, or null. */
    public S sendingState() {
        return sending;
    }

    /** The unknown-outcome state of a non-idempotent sink, or null. */
    public S unknownState() {
        return unknown;
    }

    /** The largest batch the dialect allows. */
    public int maxBatchSize() {
        return engine.dialect().traits().maxBatchSize();
    }

    /**
     * Claims up to {@code batchSize} eligible, due rows in the queue's order, skipping rows other transactions hold
     * locked, on the data source (retrying transient failures). A short or empty batch is normal under contention.
     *
     * @throws ConfigurationException if {@code batchSize} is outside 1..{@link #maxBatchSize()}
     */
    public List<ClaimedRow<S>> claim(int batchSize) {
        BatchUpdate statement = claimStatement(batchSize);
        long token = newToken();
        Object[] args = {machine.code(processing), token};
        String operation = "claim from queue '" + name + "'";
        List<Object[]> rows = !engine.dialect().traits().batchUpdateIsAtomic()
                ? engine.transaction(operation, c -> statement.execute(c, args))
                : engine.autocommit(operation, c -> statement.execute(c, args));
        if (rows.size() > batchSize) {
            // every dialect renders a bounded claim; this guards the invariant against a future regression
            throw new DataAccessException("claim returned " + rows.size() + " rows for a batch of " + batchSize);
        }
        List<ClaimedRow<S>> claimed = toRows(rows, token);
        if (!claimed.isEmpty() && engine.hasListeners()) {
            engine.fire(l -> l.onClaim(name, claimed.size()));
        }
        return claimed;
    }

    /** The SQL text of a claim of {@code batchSize} rows, statement by statement (for logs and exact-SQL tests). */
    public List<String> claimSql(int batchSize) {
        return claimStatement(batchSize).sql();
    }

    private BatchUpdate claimStatement(int batchSize) {
        int max = engine.dialect().traits().maxBatchSize();
        if (batchSize < 1 || batchSize > max) {
            throw new ConfigurationException(
                    "batchSize must be 1.." + max + ", was " + batchSize + " (queue '" + name + "')");
        }
        return claimStatements.computeIfAbsent(batchSize, n -> engine.dialect().batchUpdate(claimSpec(n)));
    }

    private BatchUpdateSpec claimSpec(int n) {
        Dialect d = engine.dialect();
        SqlFragment set = new SqlFragment(
                qState + " = ?, " + qLease + " = " + d.sql().plusMillis(d.sql().currentTimestamp(), lease.toMillis())
                        + ", " + qToken + " = ?, " + qAttempts + " = " + qAttempts + " + 1",
                List.of(new Param(0), new Param(1)));
        BatchUpdateSpec.Builder spec = BatchUpdateSpec.builder(qTable, qId)
                .where(claimWhere)
                .set(set)
                .limit(n)
                .orderBy(qOrderBy)
                .returning(returning)
                .returningBeforeUpdate(returningBeforeUpdate);
        if (pickGuard != null) {
            spec.pickGuard(pickGuard);
        }
        return spec.build();
    }

    private List<ClaimedRow<S>> toRows(List<Object[]> rows, long token) {
        List<ClaimedRow<S>> out = new ArrayList<>(rows.size());
        for (Object[] r : rows) {
            Map<String, Object> values = new LinkedHashMap<>();
            for (int i = 0; i < select.size(); i++) {
                values.put(select.get(i), r[i + 2]);
            }
            out.add(new ClaimedRow<>(name, r[0], token, ((Number) r[1]).intValue(), values));
        }
        return out;
    }

    private static long newToken() {
        return (ThreadLocalRandom.current().nextLong() >>> 1) + 1;
    }

    /** Completes the row into {@code target}; fenced by the claim's token. */
    public LeaseResult<S> complete(ClaimedRow<S> row, S target) {
        return apply(row, Outcome.complete(target));
    }

    /**
     * Applies a handler's outcome to one row in its own autocommit statement, fenced by the claim's token.
     *
     * @return {@link LeaseResult.Done} with the row's new state, or {@link LeaseResult.LeaseLost}
     * @throws IllegalTransitionException if the outcome's completion state is not allowed from the processing state
     */
    public LeaseResult<S> apply(ClaimedRow<S> row, Outcome<S> outcome) {
        return applyAll(List.of(new Decision<>(row, outcome))).get(0);
    }

    /**
     * Applies many outcomes in one transaction: one commit for the lot, each row still fenced by its
     * own token. The results are in the order given and say which rows were fenced out. The usual end of a batch, every
     * row of one claim completed into the same terminal state with nothing else set, is one statement; a row that
     * claim had already completed then reports {@link LeaseResult.Done} again (it is in that state under that claim).
     */
    public List<LeaseResult<S>> applyAll(List<Decision<S>> decisions) {
        if (decisions.isEmpty()) {
            return List.of();
        }
        String operation = "apply " + decisions.size() + " outcome(s) in queue '" + name + "'";
        List<LeaseResult<S>> results;
        if (decisions.size() > 1 && oneFinalCompletion(decisions)) {
            S target = decisions.get(0).outcome().target();
            machine.checkTransition(processing, target);
            if (sending != null) {
                machine.checkTransition(sending, target);
            }
            results = engine.autocommit(operation, c -> completeTogether(c, decisions));
        } else {
            List<Prepared> prepared = new ArrayList<>(decisions.size());
            for (Decision<S> d : decisions) {
                prepared.add(prepare(d.row(), d.outcome()));
            }
            results = decisions.size() == 1
                    ? engine.autocommit(operation, c -> runFenced(c, prepared))
                    : engine.transaction(operation, c -> runFenced(c, prepared));
        }
        if (engine.hasListeners()) {
            for (int i = 0; i < results.size(); i++) {
                LeaseResult<S> r = results.get(i);
                Decision<S> d = decisions.get(i);
                engine.fire(l -> {
                    if (r instanceof LeaseResult.LeaseLost<S>) {
                        l.onLeaseLost(name, r.id());
                    } else if (r instanceof LeaseResult.Done<S> done) {
                        l.onOutcome(
                                name,
                                r.id(),
                                d.outcome().kind(),
                                done.state(),
                                d.row().attempt());
                    }
                });
            }
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

    /** Extends the leases of many rows in one transaction. */
    public List<LeaseResult<S>> heartbeatAll(List<ClaimedRow<S>> rows) {
        if (rows.isEmpty()) {
            return List.of();
        }
        List<Prepared> prepared = new ArrayList<>();
        for (ClaimedRow<S> r : rows) {
            prepared.add(heartbeatPrepared(r));
        }
        return engine.transaction("heartbeat in queue '" + name + "'", c -> runFenced(c, prepared));
    }

    /** Gives a claimed row back to the claimable state at once; fenced. */
    public LeaseResult<S> release(ClaimedRow<S> row) {
        return apply(row, Outcome.release());
    }

    /**
     * Records, fenced and committed, that an external call that cannot be undone is about to be made: processing →
     * sending. A row whose lease expires in the sending state is never handed out again; it goes to the unknown state
     * for reconciliation ({@link #reclaimExpired()}).
     *
     * @throws ConfigurationException if the queue has no sending state
     */
    public LeaseResult<S> markSending(ClaimedRow<S> row) {
        if (sending == null) {
            throw new ConfigurationException("queue '" + name + "' has no sending state (Builder.nonIdempotentSink)");
        }
        Prepared p = new Prepared(
                fenced(
                        "send",
                        () -> "UPDATE " + qTable + " SET " + qState + " = ?, " + qLease + " = "
                                + plus(lease) + " WHERE " + qId + " = ? AND " + qToken + " = ? AND "
                                + inStates(List.of(processing))),
                binds(machine.code(sending), row.id(), row.token(), processing),
                row,
                sending);
        return engine.autocommit("mark sending in queue '" + name + "'", c -> runFenced(c, List.of(p)))
                .get(0);
    }

    /**
     * Returns rows whose lease expired to the claimable state, and moves rows whose lease expired while sending to
     * the unknown state. Runs in bounded batches that skip locked rows. Workers call it periodically.
     *
     * @return rows reclaimed plus rows moved to unknown
     */
    public long reclaimExpired() {
        long moved = sweep(processing, claimable, "reclaim expired leases");
        if (sending != null) {
            long lost = sweep(sending, unknown, "move expired sends to unknown");
            if (lost > 0) {
                engine.fire(l -> l.onUnknownSends(name, lost));
            }
            moved += lost;
        }
        return moved;
    }

    private long sweep(S from, S to, String what) {
        Dialect d = engine.dialect();
        SqlFragment where = SqlFragment.join(
                " AND ",
                List.of(
                        d.sql().stateIn(qState, List.of(machine.code(from))),
                        SqlFragment.of(qLease + " < " + d.sql().currentTimestamp())));
        SqlFragment set = new SqlFragment(qState + " = ?, " + qLease + " = NULL", List.of(machine.code(to)));
        BatchUpdate st = d.batchUpdate(BatchUpdateSpec.builder(qTable, qId)
                .where(where)
                .set(set)
                .limit(500)
                .build());
        long total = 0;
        while (true) {
            String operation = what + " in queue '" + name + "'";
            int n = !d.traits().batchUpdateIsAtomic()
                    ? engine.transaction(
                            operation, c -> st.execute(c, new Object[0]).size())
                    : engine.autocommit(
                            operation, c -> st.execute(c, new Object[0]).size());
            total += n;
            if (n < 500) {
                break;
            }
        }
        if (total > 0 && from == processing) {
            long reclaimed = total;
            engine.fire(l -> l.onReclaim(name, reclaimed));
        }
        return total;
    }

    /** Ids of rows in the unknown state, oldest id first, at most {@code limit}. */
    public List<Object> unknownRows(int limit) {
        if (unknown == null) {
            return List.of();
        }
        if (limit < 1) {
            throw new ConfigurationException("limit must be positive, was " + limit);
        }
        Dialect d = engine.dialect();
        SqlFragment where = d.sql().stateIn(qState, List.of(machine.code(unknown)));
        String sql = "SELECT " + qId + " FROM " + qTable + " WHERE " + where.sql() + " ORDER BY " + qId;
        return engine.autocommit("list unknown sends in queue '" + name + "'", c -> {
            List<Object> ids = new ArrayList<>();
            try (PreparedStatement ps = c.prepareStatement(sql)) {
                ps.setMaxRows(limit);
                Engine.bind(ps, where.binds());
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        ids.add(rs.getObject(1));
                    }
                }
            }
            return ids;
        });
    }

    /**
     * Resolves a row in the unknown state after asking the sink: {@code sent = true} completes it into {@code
     * target} (with the outcome's columns), {@code sent = false} returns it to the claimable state to be sent again.
     * Guarded by the unknown state, so two reconcilers cannot both resolve a row.
     *
     * @return Done, or LeaseLost when the row was no longer unknown
     */
    public LeaseResult<S> resolveUnknown(Object id, boolean sent, Outcome<S> completion) {
        Objects.requireNonNull(id, "id");
        if (unknown == null) {
            throw new ConfigurationException("queue '" + name + "' has no unknown state");
        }
        S target;
        List<String> cols = List.of();
        List<Object> vals = List.of();
        List<Boolean> nows = List.of();
        if (sent) {
            Objects.requireNonNull(completion, "completion");
            if (completion.kind() != Outcome.Kind.COMPLETE) {
                throw new ConfigurationException("a sent row resolves with Outcome.complete, not " + completion.kind());
            }
            target = completion.target();
            machine.checkTransition(unknown, target);
            cols = completion.columns();
            vals = completion.values();
            nows = completion.nows();
        } else {
            target = claimable;
            machine.checkTransition(unknown, claimable);
        }
        String sql = setSql("resolve", cols, nows, " WHERE " + qId + " = ? AND " + inStates(List.of(unknown)));
        List<Object> b = new ArrayList<>();
        b.add(machine.code(target));
        addValues(b, vals, nows);
        b.add(id);
        b.addAll(stateCodes(List.of(unknown)));
        S finalTarget = target;
        return engine.autocommit("resolve unknown send in queue '" + name + "'", c -> {
            try (PreparedStatement ps = c.prepareStatement(sql)) {
                Engine.bind(ps, b);
                return ps.executeUpdate() == 1
                        ? new LeaseResult.Done<>(id, finalTarget)
                        : new LeaseResult.LeaseLost<>(id);
            }
        });
    }

    /** Measures the queue (one query, database clock). */
    public QueueHealth health() {
        Dialect d = engine.dialect();
        String now = d.sql().currentTimestamp();
        SqlFragment isClaimable = d.sql().stateIn(qState, List.of(machine.code(claimable)));
        SqlFragment eligibleNow = claimWhere;
        SqlFragment isProcessing = d.sql().stateIn(qState, List.of(machine.code(processing)));
        SqlFragment isDead = d.sql().stateIn(qState, List.of(machine.code(dead)));
        SqlFragment isUnknown =
                unknown == null ? SqlFragment.of("1=0") : d.sql().stateIn(qState, List.of(machine.code(unknown)));
        String age = ageColumn == null
                ? "NULL"
                : "MIN(CASE WHEN " + eligibleNow.sql() + " THEN " + Identifiers.quote(d, ageColumn) + " END)";
        String sql = "SELECT SUM(CASE WHEN " + eligibleNow.sql() + " THEN 1 ELSE 0 END), "
                + "SUM(CASE WHEN " + isClaimable.sql() + " THEN 1 ELSE 0 END), "
                + "SUM(CASE WHEN " + isProcessing.sql() + " AND " + qLease + " >= " + now + " THEN 1 ELSE 0 END), "
                + "SUM(CASE WHEN " + isProcessing.sql() + " AND " + qLease + " < " + now + " THEN 1 ELSE 0 END), "
                + "SUM(CASE WHEN " + isDead.sql() + " THEN 1 ELSE 0 END), "
                + "SUM(CASE WHEN " + isUnknown.sql() + " THEN 1 ELSE 0 END), "
                + age + ", " + now + " FROM " + qTable;
        List<Object> b = new ArrayList<>();
        b.addAll(eligibleNow.binds());
        b.addAll(isClaimable.binds());
        b.addAll(isProcessing.binds());
        b.addAll(isProcessing.binds());
        b.addAll(isDead.binds());
        b.addAll(isUnknown.binds());
        if (ageColumn != null) {
            b.addAll(eligibleNow.binds());
        }
        return engine.autocommit("measure queue '" + name + "'", c -> {
            try (PreparedStatement ps = c.prepareStatement(sql)) {
                Engine.bind(ps, b);
                try (ResultSet rs = ps.executeQuery()) {
                    rs.next();
                    long eligibleCount = rs.getLong(1);
                    Duration oldest = null;
                    java.sql.Timestamp oldestTs = ageColumn == null ? null : rs.getTimestamp(7);
                    java.sql.Timestamp dbNow = rs.getTimestamp(8);
                    if (oldestTs != null && dbNow != null) {
                        oldest = Duration.ofMillis(Math.max(0, dbNow.getTime() - oldestTs.getTime()));
                    }
                    return new QueueHealth(
                            eligibleCount,
                            rs.getLong(2) - eligibleCount,
                            rs.getLong(3),
                            rs.getLong(4),
                            rs.getLong(5),
                            rs.getLong(6),
                            oldest);
                }
            }
        });
    }

    /**
     * Checks the table: the columns the queue needs exist with usable types, the id is unique, and (PostgreSQL,
     * MySQL, MariaDB) an index serves the claim, proven by the planner. Throws one exception listing every problem
     * and the DDL that fixes it.
     *
     * @throws SchemaMismatchException if anything is missing
     */
    public void verify() {
        engine.autocommit("verify queue '" + name + "'", c -> {
            Dialect d = engine.dialect();
            SchemaCheck check = new SchemaCheck(c, d, table);
            check.requireUniqueKey(idColumn);
            check.requireStateColumn(stateColumn, machine);
            check.requireColumn(leaseColumn, ColumnType.TIMESTAMP, "");
            check.requireColumn(tokenColumn, ColumnType.BIGINT, "");
            check.requireColumn(attemptsColumn, ColumnType.INT, "NOT NULL DEFAULT 0");
            check.requireColumn(nextAttemptColumn, ColumnType.TIMESTAMP, "");
            check.requireColumn(errorColumn, ColumnType.TEXT, "");
            if (check.tableFound() && !check.hasProblems()) { // the planner needs every column to exist
                Optional<String> plan =
                        d.diagnostics().claimPlanProblem(c, claimSpec(10), new Object[] {machine.code(processing), 0L});
                plan.ifPresent(p -> check.problem("queue '" + name + "': " + p, suggestedIndex()));
            }
            check.throwIfProblems();
            return null;
        });
    }

    /** DDL for an index that serves the claim: state, then equality guards, then the order. */
    public String suggestedIndex() {
        Dialect d = engine.dialect();
        List<String> cols = qOrderBy;
        String[] parts = Identifiers.splitTable(table);
        String base = "ix_" + parts[parts.length - 1] + "_" + name.replaceAll("[^A-Za-z0-9_]", "_") + "_claim";
        if (base.length() > d.traits().maxIdentifierLength()) {
            base = base.substring(0, d.traits().maxIdentifierLength());
        }
        // the partial form covers the processing state too, so the expiry sweep has an index as well
        List<Object> active = new ArrayList<>(List.of(machine.code(claimable), machine.code(processing)));
        if (sending != null) {
            active.add(machine.code(sending));
        }
        return d.sql()
                .claimIndex(
                        Identifiers.quote(d, base),
                        qTable,
                        cols,
                        d.sql().stateIn(qState, active).sql());
    }

    // ---- fenced statements

    /** A rendered fenced statement. */
    private record Fenced(String sql) {}

    /** One fenced write ready to bind. */
    private record Prepared(Fenced statement, List<Object> binds, ClaimedRow<?> row, Enum<?> resultState) {}

    private Prepared prepare(ClaimedRow<S> row, Outcome<S> outcome) {
        Objects.requireNonNull(row, "row");
        Objects.requireNonNull(outcome, "outcome");
        if (!row.queue().equals(name)) {
            throw new ConfigurationException(
                    "row " + row + " was claimed from queue '" + row.queue() + "', not '" + name + "'");
        }
        switch (outcome.kind()) {
            case COMPLETE -> {
                S target = outcome.target();
                machine.checkTransition(processing, target);
                if (sending != null) {
                    machine.checkTransition(sending, target);
                }
                String sql = setSql("complete", outcome.columns(), outcome.nows(), fence);
                List<Object> b = new ArrayList<>();
                b.add(machine.code(target));
                addValues(b, outcome.values(), outcome.nows());
                b.add(row.id());
                b.add(row.token());
                b.addAll(stateCodes(held));
                return new Prepared(fencedByText(sql), b, row, target);
            }
            case RETRY -> {
                boolean exhausted = row.attempt() >= retry.maxAttempts();
                if (exhausted) {
                    return deadLetter(row, outcome.error(), fence, held);
                }
                Duration delay = outcome.delay() != null
                        ? outcome.delay()
                        : retry.delayBefore(
                                row.attempt(), ThreadLocalRandom.current().nextDouble());
                Dialect d = engine.dialect();
                Fenced f = fenced(
                        "retry",
                        () -> "UPDATE " + qTable + " SET " + qState + " = ?, " + qLease
                                + " = NULL, " + qNext + " = "
                                + d.sql().plusMillisParam(d.sql().currentTimestamp()) + ", " + qError
                                + " = ?" + fence);
                return new Prepared(
                        f,
                        binds(machine.code(claimable), delay.toMillis(), truncate(outcome.error()), row, held),
                        row,
                        claimable);
            }
            case DEAD_LETTER -> {
                return deadLetter(row, outcome.error(), fence, held);
            }
            case UNKNOWN -> {
                if (unknown == null) {
                    throw new ConfigurationException(
                            "queue '" + name + "' has no unknown state" + " (Builder.nonIdempotentSink)");
                }
                Fenced f = fenced(
                        "unknown",
                        () -> "UPDATE " + qTable + " SET " + qState + " = ?, " + qLease + " = NULL, " + qError + " = ?"
                                + fence);
                return new Prepared(
                        f, binds(machine.code(unknown), truncate(outcome.error()), row, held), row, unknown);
            }
            case RELEASE -> {
                Fenced f = fenced(
                        "release", () -> "UPDATE " + qTable + " SET " + qState + " = ?, " + qLease + " = NULL" + fence);
                return new Prepared(f, binds(machine.code(claimable), row, held), row, claimable);
            }
            default -> throw new IllegalStateException("unknown outcome " + outcome.kind());
        }
    }

    private Prepared deadLetter(ClaimedRow<S> row, String error, String fence, List<S> held) {
        Fenced f = fenced(
                "dead",
                () -> "UPDATE " + qTable + " SET " + qState + " = ?, " + qLease + " = NULL, " + qError + " = ?"
                        + fence);
        return new Prepared(f, binds(machine.code(dead), truncate(error), row, held), row, dead);
    }

    private Prepared heartbeatPrepared(ClaimedRow<S> row) {
        Fenced f = fenced(
                "heartbeat",
                () -> "UPDATE " + qTable + " SET " + qLease + " = " + plus(lease) + " WHERE " + qId + " = ? AND "
                        + qToken + " = ? AND " + inStates(held));
        List<Object> b = new ArrayList<>();
        b.add(row.id());
        b.add(row.token());
        b.addAll(stateCodes(held));
        return new Prepared(f, b, row, processing);
    }

    /** Binds: leading values, then id, token and the held states' codes. */
    private List<Object> binds(Object first, ClaimedRow<S> row, List<S> held) {
        List<Object> b = new ArrayList<>();
        b.add(first);
        b.add(row.id());
        b.add(row.token());
        b.addAll(stateCodes(held));
        return b;
    }

    private List<Object> binds(Object a, Object b2, ClaimedRow<S> row, List<S> held) {
        List<Object> b = new ArrayList<>();
        b.add(a);
        b.add(b2);
        b.add(row.id());
        b.add(row.token());
        b.addAll(stateCodes(held));
        return b;
    }

    private List<Object> binds(Object a, Object b2, Object c, ClaimedRow<S> row, List<S> held) {
        List<Object> b = new ArrayList<>();
        b.add(a);
        b.add(b2);
        b.add(c);
        b.add(row.id());
        b.add(row.token());
        b.addAll(stateCodes(held));
        return b;
    }

    private List<Object> binds(Object a, Object id, long token, S state) {
        List<Object> b = new ArrayList<>();
        b.add(a);
        b.add(id);
        b.add(token);
        b.addAll(stateCodes(List.of(state)));
        return b;
    }

    private List<Object> stateCodes(List<S> states) {
        if (states == held) {
            return heldBinds;
        }
        List<Object> codes = new ArrayList<>();
        for (S s : states) {
            codes.add(machine.code(s));
        }
        return engine.dialect().sql().stateIn(qState, codes).binds();
    }

    private String inStates(List<S> states) {
        if (states == held) {
            return heldGuard;
        }
        List<Object> codes = new ArrayList<>();
        for (S s : states) {
            codes.add(machine.code(s));
        }
        return engine.dialect().sql().stateIn(qState, codes).sql();
    }

    private String setSql(String kind, List<String> columns, List<Boolean> nows, String where) {
        StringBuilder key = new StringBuilder(kind);
        for (int i = 0; i < columns.size(); i++) {
            key.append(nows.get(i) ? ";n:" : ";v:").append(columns.get(i));
        }
        key.append(where);
        return fencedSql
                .computeIfAbsent(key.toString(), k -> {
                    Dialect d = engine.dialect();
                    StringBuilder sql = new StringBuilder("UPDATE ")
                            .append(qTable)
                            .append(" SET ")
                            .append(qState)
                            .append(" = ?, ")
                            .append(qLease)
                            .append(" = NULL");
                    for (int i = 0; i < columns.size(); i++) {
                        String q = Identifiers.quote(d, columns.get(i));
                        if (q.equals(qState) || q.equals(qLease) || q.equals(qToken) || q.equals(qId)) {
                            throw new ConfigurationException(
                                    "an outcome cannot set " + columns.get(i) + ": the queue manages it");
                        }
                        sql.append(", ")
                                .append(q)
                                .append(" = ")
                                .append(nows.get(i) ? d.sql().currentTimestamp() : "?");
                    }
                    return new Fenced(sql.append(where).toString());
                })
                .sql();
    }

    private Fenced fencedByText(String sql) {
        return new Fenced(sql);
    }

    private Fenced fenced(String key, java.util.function.Supplier<String> sql) {
        return fencedSql.computeIfAbsent(key, k -> new Fenced(sql.get()));
    }

    private static void addValues(List<Object> binds, List<Object> values, List<Boolean> nows) {
        for (int i = 0; i < values.size(); i++) {
            if (!nows.get(i)) {
                binds.add(values.get(i));
            }
        }
    }

    private String plus(Duration d) {
        Dialect dialect = engine.dialect();
        return dialect.sql().plusMillis(dialect.sql().currentTimestamp(), d.toMillis());
    }

    private static String truncate(String error) {
        if (error == null) {
            return null;
        }
        return error.length() <= MAX_ERROR_LENGTH ? error : error.substring(0, MAX_ERROR_LENGTH);
    }

    /**
     * Runs fenced writes as JDBC batches grouped by statement, and maps each update count to a result. A count the
     * driver does not report ({@link Statement#SUCCESS_NO_INFO}) is settled by reading the row back in the same
     * transaction: it is ours if it carries our token and the state we wrote.
     */
    private List<LeaseResult<S>> runFenced(Connection c, List<Prepared> prepared) throws SQLException {
        List<LeaseResult<S>> results = new ArrayList<>(java.util.Collections.nCopies(prepared.size(), null));
        Map<String, List<Integer>> groups = new LinkedHashMap<>();
        for (int i = 0; i < prepared.size(); i++) {
            groups.computeIfAbsent(prepared.get(i).statement().sql(), k -> new ArrayList<>())
                    .add(i);
        }
        for (Map.Entry<String, List<Integer>> g : groups.entrySet()) {
            List<Integer> idx = g.getValue();
            try (PreparedStatement ps = c.prepareStatement(g.getKey())) {
                if (idx.size() == 1) {
                    Prepared p = prepared.get(idx.get(0));
                    Engine.bind(ps, p.binds());
                    results.set(idx.get(0), result(p, ps.executeUpdate()));
                    continue;
                }
                for (int i : idx) {
                    Engine.bind(ps, prepared.get(i).binds());
                    ps.addBatch();
                }
                int[] counts = ps.executeBatch();
                for (int k = 0; k < idx.size(); k++) {
                    Prepared p = prepared.get(idx.get(k));
                    int count = k < counts.length ? counts[k] : Statement.SUCCESS_NO_INFO;
                    results.set(idx.get(k), count == Statement.SUCCESS_NO_INFO ? readBack(c, p) : result(p, count));
                }
            }
        }
        return results;
    }

    /**
     * True when every decision completes a row of one claim into the same terminal state and sets nothing else: the
     * usual end of a batch, which then takes one statement instead of a transaction of one update per row.
     */
    private boolean oneFinalCompletion(List<Decision<S>> decisions) {
        for (Decision<S> d : decisions) {
            if (d == null
                    || d.row() == null
                    || d.outcome() == null
                    || !d.row().queue().equals(name)) {
                return false; // prepare() reports it
            }
        }
        Decision<S> first = decisions.get(0);
        if (first.outcome().kind() != Outcome.Kind.COMPLETE
                || !machine.isTerminal(first.outcome().target())
                || !first.outcome().columns().isEmpty()) {
            return false;
        }
        Set<Object> ids = new java.util.HashSet<>();
        for (Decision<S> d : decisions) {
            if (d.outcome().kind() != Outcome.Kind.COMPLETE
                    || d.outcome().target() != first.outcome().target()
                    || !d.outcome().columns().isEmpty()
                    || d.row().token() != first.row().token()
                    || !ids.add(idKey(d.row().id()))) {
                return false;
            }
        }
        return true;
    }

    /**
     * {@code UPDATE … SET state = target, lease = NULL WHERE id IN (…) AND token = ? AND state IN (held)}: atomic by
     * itself, so it runs in autocommit mode. If it changed fewer rows than given, some leases were lost; the rows we
     * completed are those now in the terminal state with our token (a terminal row never moves again, and any later
     * claim of a lost row stamped another token).
     */
    private List<LeaseResult<S>> completeTogether(Connection c, List<Decision<S>> decisions) throws SQLException {
        S target = decisions.get(0).outcome().target();
        long token = decisions.get(0).row().token();
        int n = decisions.size();
        String sql = completeAllSql.computeIfAbsent(
                n,
                k -> "UPDATE " + qTable + " SET " + qState + " = ?, " + qLease + " = NULL WHERE " + idsAndToken(k)
                        + " AND " + inStates(held));
        List<Object> binds = new ArrayList<>(n + 4);
        binds.add(machine.code(target));
        for (Decision<S> d : decisions) {
            binds.add(d.row().id());
        }
        binds.add(token);
        binds.addAll(stateCodes(held));
        int count;
        try (PreparedStatement ps = c.prepareStatement(sql)) {
            Engine.bind(ps, binds);
            count = ps.executeUpdate();
        }
        if (count > n) {
            throw new DataAccessException("a fenced write changed " + count + " rows of " + table + " for " + n
                    + " ids: " + idColumn + " is not unique (ClaimQueue.verify() reports this)");
        }
        Set<Object> ours = new java.util.HashSet<>();
        if (count < n) {
            List<Object> readBinds = new ArrayList<>(binds.subList(1, n + 2));
            readBinds.addAll(stateCodes(List.of(target)));
            try (PreparedStatement ps = c.prepareStatement("SELECT " + qId + " FROM " + qTable + " WHERE "
                    + idsAndToken(n) + " AND " + inStates(List.of(target)))) {
                Engine.bind(ps, readBinds);
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        ours.add(idKey(rs.getObject(1)));
                    }
                }
            }
        }
        List<LeaseResult<S>> results = new ArrayList<>(n);
        for (Decision<S> d : decisions) {
            Object id = d.row().id();
            results.add(
                    count == n || ours.contains(idKey(id))
                            ? new LeaseResult.Done<>(id, target)
                            : new LeaseResult.LeaseLost<>(id));
        }
        return results;
    }

    private String idsAndToken(int n) {
        return qId + " IN (" + String.join(", ", java.util.Collections.nCopies(n, "?")) + ") AND " + qToken + " = ?";
    }

    /** Integral ids compare by value whatever type the driver returned them as. */
    private static Object idKey(Object id) {
        return id instanceof Integer || id instanceof Long || id instanceof Short || id instanceof Byte
                ? (Object) ((Number) id).longValue()
                : id;
    }

    @SuppressWarnings("unchecked")
    private LeaseResult<S> result(Prepared p, int count) {
        if (count > 1) {
            throw new DataAccessException("a fenced write changed " + count + " rows of " + table + ": " + idColumn
                    + " is not unique (ClaimQueue.verify() reports this)");
        }
        return count == 1
                ? new LeaseResult.Done<>(p.row().id(), (S) p.resultState())
                : new LeaseResult.LeaseLost<>(p.row().id());
    }

    @SuppressWarnings("unchecked")
    private LeaseResult<S> readBack(Connection c, Prepared p) throws SQLException {
        String sql = "SELECT " + qToken + ", " + qState + " FROM " + qTable + " WHERE " + qId + " = ?";
        try (PreparedStatement ps = c.prepareStatement(sql)) {
            Engine.bindOne(ps, 1, p.row().id());
            try (ResultSet rs = ps.executeQuery()) {
                if (rs.next()
                        && rs.getLong(1) == p.row().token()
                        && machine.fromCode(rs.getObject(2)).orElse(null) == p.resultState()) {
                    return new LeaseResult.Done<>(p.row().id(), (S) p.resultState());
                }
            }
        }
        return new LeaseResult.LeaseLost<>(p.row().id());
    }

    private Condition stateIs(S state) {
        return new Condition.StateIn(stateColumn, List.of(machine.code(state)), List.of(state));
    }

    Engine engine() {
        return engine;
    }

    @Override
    public String toString() {
        return "ClaimQueue[" + name + " on " + table + "." + stateColumn + " " + claimable + " -> " + processing + "]";
    }

    /**
     * A handler's decision about one claimed row, for {@link #applyAll}.
     *
     * @param row the claimed row
     * @param outcome what to do with it
     * @param <S> the enum of states
     */
    public record Decision<S extends Enum<S>>(ClaimedRow<S> row, Outcome<S> outcome) {}

    /**
     * Collects the definition of a {@link ClaimQueue}; made by {@link Baton#queue(String)}. Not thread-safe;
     * {@link #build()} validates and snapshots it.
     *
     * @param <S> the enum of states
     */
    public static final class Builder<S extends Enum<S>> {
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
        private RetryPolicy retry =
                RetryPolicy.exponential(Duration.ofSeconds(5), 2.0).maxAttempts(10);
        private String leaseColumn = "lease_until";
        private String tokenColumn = "claim_token";
        private String attemptsColumn = "attempts";
        private String nextAttemptColumn = "next_attempt_at";
        private String errorColumn = "last_error";
        private String ageColumn;
        private String orderKeyColumn;

        Builder(Engine engine, String name) {
            this.engine = engine;
            this.name = Objects.requireNonNull(name, "name");
            if (name.isBlank() || name.length() > 100) {
                throw new ConfigurationException(
                        "queue name must be 1..100 characters and not blank, was '" + name + "'");
            }
        }

        /** The host table ({@code table} or {@code schema.table}). */
        public Builder<S> table(String table) {
            Identifiers.quoteTable(engine.dialect(), table);
            this.table = table;
            return this;
        }

        /** The id column (default {@code id}); primary key or unique. */
        public Builder<S> id(String column) {
            this.idColumn = Identifiers.check(column);
            return this;
        }

        /**
         * The state column, its machine, and the claim transition {@code claimable → processing} (e.g. PENDING →
         * PROCESSING), which the machine must allow, with a way back ({@code processing → claimable}) for retries,
         * releases and reclaims.
         */
        @SuppressWarnings("unchecked")
        public <T extends Enum<T>> Builder<T> claim(String column, StateMachine<T> machine, T claimable, T processing) {
            Builder<T> self = (Builder<T>) this;
            self.stateColumn = Identifiers.check(column);
            self.machine = Objects.requireNonNull(machine, "machine");
            self.claimable = Objects.requireNonNull(claimable, "claimable");
            self.processing = Objects.requireNonNull(processing, "processing");
            return self;
        }

        /** Guards that make a claimable row eligible (all must hold), e.g. {@code orders.is(PAID)}. */
        public Builder<S> eligibleWhen(Condition... conditions) {
            for (Condition c : conditions) {
                eligible.add(Objects.requireNonNull(c, "condition"));
            }
            return this;
        }

        /** Claim order (default: the id column ascending). An index must serve it. */
        public Builder<S> orderBy(String... columns) {
            for (String c : columns) {
                orderBy.add(Identifiers.check(c));
            }
            return this;
        }

        /** Columns to read with each claimed row ({@link ClaimedRow#get}). */
        public Builder<S> select(String... columns) {
            for (String c : columns) {
                select.add(Identifiers.check(c));
            }
            return this;
        }

        /** The state rows go to after the last attempt or on {@link Outcome#deadLetter}; required. */
        public Builder<S> deadState(S state) {
            this.dead = Objects.requireNonNull(state, "state");
            return this;
        }

        /**
         * Declares the sink non-idempotent: {@link ClaimQueue#markSending} commits {@code processing → sending}
         * before the external call; a row whose lease expires while sending moves to {@code unknown} instead of being
         * sent again, and waits for {@link ClaimQueue#resolveUnknown}.
         */
        public Builder<S> nonIdempotentSink(S sending, S unknown) {
            this.sending = Objects.requireNonNull(sending, "sending");
            this.unknown = Objects.requireNonNull(unknown, "unknown");
            return this;
        }

        /** How long a claim holds a row (default 5 minutes), measured by the database clock; 1 s to 24 h. */
        public Builder<S> lease(Duration lease) {
            Objects.requireNonNull(lease, "lease");
            if (lease.compareTo(Duration.ofSeconds(1)) < 0 || lease.compareTo(Duration.ofHours(24)) > 0) {
                throw new ConfigurationException(
                        "lease must be between 1 s and 24 h, was " + lease + " (queue '" + name + "')");
            }
            this.lease = lease;
            return this;
        }

        /** Backoff between attempts and the attempts before the dead state (default 5 s doubling, 10 attempts). */
        public Builder<S> retry(RetryPolicy policy) {
            this.retry = Objects.requireNonNull(policy, "policy");
            return this;
        }

        /** Renames the bookkeeping columns (defaults: lease_until, claim_token, attempts, next_attempt_at, last_error). */
        public Builder<S> columns(String lease, String token, String attempts, String nextAttempt, String error) {
            this.leaseColumn = Identifiers.check(lease);
            this.tokenColumn = Identifiers.check(token);
            this.attemptsColumn = Identifiers.check(attempts);
            this.nextAttemptColumn = Identifiers.check(nextAttempt);
            this.errorColumn = Identifiers.check(error);
            return this;
        }

        /**
         * Claims rows that share a value of {@code keyColumn} one at a time, in id order: a row is not claimed while an
         * earlier row with the same key is claimable (even if waiting for a retry) or being processed. Rows with a
         * NULL key are not ordered. Needs an index on {@code (keyColumn, id)}. Order follows ids, so it holds for rows
         * of one key written one after another (as an aggregate's row lock makes them), not for concurrent writers.
         */
        public Builder<S> orderedPerKey(String keyColumn) {
            this.orderKeyColumn = Identifiers.check(keyColumn);
            return this;
        }

        /** A timestamp column (e.g. {@code created_at}) whose minimum over eligible rows gives the backlog's age. */
        public Builder<S> ageColumn(String column) {
            this.ageColumn = Identifiers.check(column);
            return this;
        }

        /**
         * Validates and builds the queue.
         *
         * @throws ConfigurationException naming what is missing or inconsistent
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
            if (sending != null) {
                machine.checkTransition(processing, sending);
                machine.checkTransition(sending, unknown);
                machine.checkTransition(sending, dead);
            }
            Set<String> managed = new java.util.HashSet<>();
            for (String c :
                    List.of(stateColumn, leaseColumn, tokenColumn, attemptsColumn, nextAttemptColumn, errorColumn)) {
                if (!managed.add(c.toLowerCase(java.util.Locale.ROOT))) {
                    throw new ConfigurationException("queue '" + name + "' uses column " + c + " for two purposes");
                }
            }
            Set<S> distinct = EnumSet.of(claimable, processing, dead);
            if (distinct.size() != 3) {
                throw new ConfigurationException(
                        "queue '" + name + "': claimable, processing and dead states must" + " differ");
            }
            return new ClaimQueue<>(this);
        }
    }
}
