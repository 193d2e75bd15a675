package dev.baton.internal.queue;

import dev.baton.Condition;
import dev.baton.RetryPolicy;
import dev.baton.SendDurability;
import dev.baton.StateMachine;
import dev.baton.internal.Conditions;
import dev.baton.internal.Engine;
import dev.baton.internal.values.Identifiers;
import dev.baton.spi.BatchUpdateSpec;
import dev.baton.spi.Dialect;
import dev.baton.spi.ExclusiveLock;
import dev.baton.spi.SqlFragment;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * The rendered shape of one claim queue: its definition, its quoted names and the SQL fragments every statement of the
 * queue is built from (the claim's guard and order, the returned columns, the held-state fence). Computed once when the
 * queue is built; the parts of the queue ({@link Claimer}, {@link FencedWrites}, {@link Sweeps}, {@link Inspection})
 * read the queue's facts from here only. Immutable.
 *
 * @param <S> the enum of states
 */
public final class QueueShape<S extends Enum<S>> {
    /** The definition as built. */
    public final QueueDefinition<S> def;

    /** The engine. */
    public final Engine engine;
    /** The engine's dialect. */
    public final Dialect dialect;
    /** The queue's name. */
    public final String name;
    /** The table as configured. */
    public final String table;
    /** The machine of the state column. */
    public final StateMachine<S> machine;
    /** The claimable state. */
    public final S claimable;
    /** The processing state. */
    public final S processing;
    /** The dead state. */
    public final S dead;
    /** The send protocol of a non-idempotent sink, or empty. */
    public final Optional<SendProtocol<S>> send;
    /** The longest a send may take: the send protocol's, else the lease's default. */
    private final Duration sendTimeout;
    /** The lease and the durations derived from it. */
    public final LeaseTiming timing;
    /** Backoff and attempts. */
    public final RetryPolicy retry;

    /** Quoted table. */
    public final String qTable;
    /** Quoted id column. */
    public final String qId;
    /** Quoted state column. */
    public final String qState;
    /** Quoted lease column. */
    public final String qLease;
    /** Quoted token column. */
    public final String qToken;
    /** Quoted attempts column. */
    public final String qAttempts;
    /** Quoted next-attempt column. */
    public final String qNext;
    /** Quoted error column. */
    public final String qError;

    /**
     * What makes a row claimable now: the claimable state, the eligibility guards, due, and an attempt left
     * ({@code attempts < maxAttempts}).
     */
    public final SqlFragment claimWhere;
    /** The claim order: state, the columns the guard fixes to one value, then the queue's order. */
    public final List<String> orderBy;
    /**
     * Per-key ordering's guard (no earlier row of the same key is pending, held, unknown or dead), or null: a dead row
     * holds its key until it is requeued or deleted.
     */
    public final SqlFragment pickGuard;
    /**
     * True when a claim ranks its candidates first ({@link #candidates(int)}): a per-key limit or round-robin across
     * groups.
     */
    public final boolean ranked;
    /** The order of a ranked claim: {@link #orderBy} with the candidates' rank after the priority; empty if plain. */
    public final List<String> rankedOrderBy;
    /**
     * The claim's index columns and the plain pick order {@code verify()} asks the planner about: {@link #orderBy},
     * and for a bounded round-robin claim ({@link #fairGroups}) the group column before the queue's order.
     */
    public final List<String> indexOrder;
    /**
     * The parts of a round-robin claim a dialect may read group by group (fairAcross without a priority or a per-key
     * limit; with either, the claim ranks every eligible row), or null.
     */
    private final List<String> fairOrder;
    /** The lock that serialises the claims of a queue with a per-key limit, or null. */
    public final ExclusiveLock claimLock;
    /** The token bucket of a rate-limited queue, or null. */
    final RateLimiter rateLimiter;
    /** What a claim returns: id, attempts, then the selected columns. */
    public final List<String> returning;
    /** The same read before the update, where derivable (else empty). */
    public final List<String> returningBeforeUpdate;

    /** The states a claim holds a row in: processing (and sending). */
    public final List<S> held;
    /** {@code state IN (held)}, with its binds. */
    public final SqlFragment heldIn;
    /** {@code  WHERE id = ? AND token = ? AND state IN (held)}: the fence of every write under a claim. */
    public final String fence;

    /** The writer's epoch as the claims saw it, and the SENDING marks a failover could lose. */
    final EpochWatch<S> epochs;

    /** Renders the shape of {@code def}. */
    public QueueShape(QueueDefinition<S> def) {
        this.def = def;
        this.engine = def.engine();
        Dialect d = engine.dialect();
        this.dialect = d;
        this.name = def.name();
        this.table = def.columns().table();
        this.machine = def.states().machine();
        this.claimable = def.states().claimable();
        this.processing = def.states().processing();
        this.dead = def.states().dead();
        this.send = def.send();
        this.timing = new LeaseTiming(def.timing().lease());
        this.sendTimeout = send.map(SendProtocol::timeout).orElseGet(timing::defaultSendTimeout);
        this.retry = def.timing().retry();

        this.qTable = Identifiers.quoteTable(d, table);
        this.qId = Identifiers.quote(d, def.columns().id());
        this.qState = Identifiers.quote(d, def.columns().state());
        this.qLease = Identifiers.quote(d, def.columns().lease());
        this.qToken = Identifiers.quote(d, def.columns().token());
        this.qAttempts = Identifiers.quote(d, def.columns().attempts());
        this.qNext = Identifiers.quote(d, def.columns().nextAttempt());
        this.qError = Identifiers.quote(d, def.columns().error());
        if (def.columns().age() != null) {
            Identifiers.quote(d, def.columns().age()); // refused at build(), not at the first health()
        }

        if (def.shaping().orderKeyColumn() == null) {
            this.pickGuard = null;
        } else {
            String[] parts = Identifiers.splitTable(table);
            String self = Identifiers.quote(d, parts[parts.length - 1]);
            String key = Identifiers.quote(d, def.shaping().orderKeyColumn());
            List<Object> blocking = new ArrayList<>();
            blocking.add(machine.code(claimable));
            blocking.add(machine.code(processing));
            send.ifPresent(p -> {
                blocking.add(machine.code(p.sending()));
                blocking.add(machine.code(p.unknown()));
            });
            // A dead row keeps holding its key until it is requeued or deleted: otherwise the next row of the key is
            // delivered, and a requeue then delivers the older one after it (a refund before its capture).
            blocking.add(machine.code(dead));
            // one probe for all blocking states, or one per state where only an equality seeks the index
            List<List<Object>> probes = d.sql().seeksIndexByStateList()
                    ? List.of(blocking)
                    : blocking.stream().map(List::of).toList();
            List<SqlFragment> guards = new ArrayList<>();
            for (List<Object> codes : probes) {
                SqlFragment states = d.sql().stateIn("baton_prior." + qState, codes);
                guards.add(new SqlFragment(
                        "NOT EXISTS (SELECT 1 FROM " + qTable + " baton_prior WHERE baton_prior." + key + " = " + self
                                + "." + key + " AND baton_prior." + qId + " < " + self + "." + qId + " AND "
                                + states.sql() + ")",
                        states.binds()));
            }
            this.pickGuard = SqlFragment.join(" AND ", guards);
        }
        List<Condition> where = new ArrayList<>();
        where.add(stateIs(claimable));
        where.addAll(def.claiming().eligible());
        where.add(Condition.due(def.columns().nextAttempt()));
        // A row put back in the claimable state with its attempts used up (by a host's transition, or by the sweep or
        // release of an older version) is never handed out for attempt maxAttempts + 1: the claim
        // passes it over, and the expiry sweep moves it to the dead state (Sweeps.reclaimExpired). The test filters
        // the rows the claim's index already delivers, so the claim stays one statement on the same plan.
        this.claimWhere = SqlFragment.join(
                " AND ",
                List.of(Conditions.and(d, where), new SqlFragment(qAttempts + " < ?", List.of(retry.maxAttempts()))));
        // The claim orders by the columns its guard fixes to one value, then by the queue's order. The result is the
        // same rows in the same order, but only an index on (state, guards, order) can deliver it without a sort, so
        // the planner takes that index even with statistics taken while most rows were pending, instead of walking
        // the primary key past every completed row (seen on PostgreSQL with stale statistics).
        List<String> order = new ArrayList<>();
        order.add(qState);
        for (Condition c : def.claiming().eligible()) {
            if (c instanceof Condition.StateIn s && s.codes().size() == 1) {
                order.add(Identifiers.quote(d, s.column()));
            } else if (c instanceof Condition.Equals e) {
                order.add(Identifiers.quote(d, e.column()));
            }
        }
        QueueDefinition.Shaping shaping = def.shaping();
        if (shaping.priorityColumn() != null) {
            order.add(Identifiers.quote(d, shaping.priorityColumn()) + " DESC");
        }
        int rankAt = order.size();
        for (String o : def.claiming().orderBy()) {
            String q = Identifiers.quote(d, o);
            if (!order.contains(q)) {
                order.add(q);
            }
        }
        this.orderBy = List.copyOf(order);
        boolean bounded = shaping.groupColumn() != null
                && shaping.keyLimitColumn() == null
                && shaping.priorityColumn() == null
                && rankAt < order.size();
        if (bounded) {
            this.fairOrder = List.copyOf(order.subList(rankAt, order.size()));
            List<String> index = new ArrayList<>(order);
            index.add(rankAt, Identifiers.quote(d, shaping.groupColumn()));
            this.indexOrder = List.copyOf(index);
        } else {
            this.fairOrder = null;
            this.indexOrder = this.orderBy;
        }
        if (shaping.ranked()) {
            List<String> ranked = new ArrayList<>(order);
            ranked.add(rankAt, "baton_candidate.baton_rank");
            this.rankedOrderBy = List.copyOf(ranked);
            this.ranked = true;
        } else {
            this.rankedOrderBy = List.of();
            this.ranked = false;
        }
        if (shaping.keyLimitColumn() != null) {
            long key = lockKey(table + "\u0000" + name);
            // a table named without its schema is another table in each schema a connection starts in
            this.claimLock = Identifiers.splitTable(table).length > 1
                    ? d.sql().exclusiveLock(key, qTable)
                    : d.sql().exclusiveLockInCurrentSchema(key, qTable);
            if (claimLock == null) {
                throw new dev.baton.UnsupportedDatabaseException("queue '" + name + "': concurrencyPerKey needs an"
                        + " exclusive lock of the database, which dialect " + d.name() + " does not have");
            }
        } else {
            this.claimLock = null;
        }
        this.rateLimiter = shaping.rateLimit() == null ? null : new RateLimiter(d, name, shaping.rateLimit());
        List<String> ret = new ArrayList<>();
        ret.add(qId);
        ret.add(qAttempts);
        for (String s : def.claiming().select()) {
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
        this.held = send.map(p -> List.of(processing, p.sending())).orElse(List.of(processing));
        this.heldIn = in(held);
        this.fence = " WHERE " + qId + " = ? AND " + qToken + " = ? AND " + heldIn.sql();
        this.epochs = new EpochWatch<>(this);
        // the queue's idle workers in this process wake after commits that make its rows eligible
        engine.wakeups()
                .queueBuilt(
                        name,
                        table,
                        def.columns().state(),
                        claimable,
                        def.claiming().eligible());
    }

    /** {@code state IN (states)}; the held states' guard is rendered once. */
    public SqlFragment in(List<S> states) {
        List<Object> codes = new ArrayList<>(states.size());
        for (S s : states) {
            codes.add(machine.code(s));
        }
        return dialect.sql().stateIn(qState, codes);
    }

    /** The longest a send may take ({@link SendProtocol#timeout()}; without a send protocol, the lease's default). */
    public Duration sendTimeout() {
        return sendTimeout;
    }

    /** Whether a sending mark must be durable on a standby before the send: {@code OFF} without a send protocol. */
    public SendDurability sendDurability() {
        return send.map(SendProtocol::durability).orElse(SendDurability.OFF);
    }

    /** {@code state IN (unknown)}: the guard of a send whose outcome is not known; only for a queue with a send protocol. */
    public SqlFragment unknownIn() {
        return in(List.of(send.orElseThrow().unknown()));
    }

    /** A condition on the state column. */
    public Condition stateIs(S state) {
        return new Condition.StateIn(def.columns().state(), List.of(machine.code(state)), List.of(state));
    }

    /** {@code <database now> + d}. */
    public String nowPlus(Duration d) {
        return dialect.sql().plusMillis(dialect.sql().currentTimestamp(), d.toMillis());
    }

    /**
     * The ranked candidates of a claim of {@code batch} rows ({@link dev.baton.spi.BatchUpdateSpec#candidates()}): every
     * row the claim's guard admits, ranked within its group (round-robin) or all at rank 0,
     * and, with a per-key limit, only the rows whose place among the admitted rows of their key, plus the rows of the
     * key already held, is within the limit.
     */
    public SqlFragment candidates(int batch) {
        Dialect d = dialect;
        QueueDefinition.Shaping shaping = def.shaping();
        String order = String.join(", ", orderBy);
        List<Object> binds = new ArrayList<>();
        StringBuilder inner = new StringBuilder("SELECT ").append(qId).append(" AS baton_id, ");
        if (shaping.groupColumn() != null) {
            String group = Identifiers.quote(d, shaping.groupColumn());
            List<String> partition = new ArrayList<>();
            partition.add(group);
            if (shaping.priorityColumn() != null) {
                partition.add(Identifiers.quote(d, shaping.priorityColumn())); // round-robin within a priority
            }
            String rowNumber =
                    "ROW_NUMBER() OVER (PARTITION BY " + String.join(", ", partition) + " ORDER BY " + order + ")";
            SqlFragment turn = BatchUpdateSpec.FairGroups.weightedTurn(
                    shaping.groupWeights().asMap(), rowNumber, group, d.sql());
            inner.append(turn.sql()).append(" AS baton_rank");
            binds.addAll(turn.binds());
            if (!shaping.groupWeights().asMap().isEmpty()) {
                inner.append(", ").append(rowNumber).append(" AS baton_in_group");
            }
        } else {
            inner.append("0 AS baton_rank");
        }
        String key = shaping.keyLimitColumn() == null ? null : Identifiers.quote(d, shaping.keyLimitColumn());
        if (key != null) {
            inner.append(", ")
                    .append(key)
                    .append(" AS baton_key, ROW_NUMBER() OVER (PARTITION BY ")
                    .append(key)
                    .append(" ORDER BY ")
                    .append(order)
                    .append(") AS baton_in_key");
        }
        inner.append(" FROM ").append(qTable).append(" WHERE ").append(claimWhere.sql());
        binds.addAll(claimWhere.binds());
        StringBuilder sql = new StringBuilder("SELECT baton_ranked.baton_id, baton_ranked.baton_rank FROM (")
                .append(inner)
                .append(") baton_ranked");
        List<String> filters = new ArrayList<>();
        if (shaping.groupColumn() != null) {
            // a claim of n rows takes at most n of one group; the rest of a group's backlog is not joined and sorted
            // again (at a million rows that join is most of the claim's time). 4n leaves room for claims running at
            // once on the same group, each skipping the rows the others locked.
            String place = shaping.groupWeights().asMap().isEmpty()
                    ? "baton_ranked.baton_rank"
                    : "baton_ranked.baton_in_group"; // a weighted turn holds several rows: bound the rows, not turns
            filters.add(place + " <= " + (long) RANK_WINDOW * batch);
        }
        if (key != null) {
            SqlFragment isHeld = in(held);
            sql.append(" LEFT JOIN (SELECT ")
                    .append(key)
                    .append(" AS baton_key, COUNT(*) AS baton_held FROM ")
                    .append(qTable)
                    .append(" WHERE ")
                    .append(isHeld.sql())
                    .append(" GROUP BY ")
                    .append(key)
                    .append(") baton_holding ON baton_holding.baton_key = baton_ranked.baton_key");
            filters.add("(baton_ranked.baton_key IS NULL OR baton_ranked.baton_in_key"
                    + " + COALESCE(baton_holding.baton_held, 0) <= " + shaping.keyLimit() + ")");
            binds.addAll(isHeld.binds());
        }
        if (!filters.isEmpty()) {
            sql.append(" WHERE ").append(String.join(" AND ", filters));
        }
        return new SqlFragment(sql.toString(), binds);
    }

    /**
     * The round-robin claim of {@code batch} rows by its parts, for a dialect that reads it group by group, or null
     * when the queue has no such claim (no fairAcross, or fairAcross with a priority or a per-key limit): the same
     * candidates as {@link #candidates(int)}.
     */
    public BatchUpdateSpec.FairGroups fairGroups(int batch) {
        if (fairOrder == null) {
            return null;
        }
        return new BatchUpdateSpec.FairGroups(
                Identifiers.quote(dialect, def.shaping().groupColumn()),
                claimWhere,
                fairOrder,
                (int) Math.min(Integer.MAX_VALUE, (long) RANK_WINDOW * batch),
                def.shaping().groupWeights().asMap());
    }

    /** How many rows of one group a claim of n rows ranks: {@value} × n. */
    static final int RANK_WINDOW = 4;

    /** FNV-1a of the queue's table and name: the key of its claim lock. */
    static long lockKey(String text) {
        long h = 0xcbf29ce484222325L;
        for (byte b : text.getBytes(StandardCharsets.UTF_8)) {
            h ^= b & 0xff;
            h *= 0x100000001b3L;
        }
        return h;
    }
}
