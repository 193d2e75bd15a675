package dev.baton.internal.queue;

import dev.baton.BatonListener;
import dev.baton.OutcomeInDoubtException;
import dev.baton.internal.tx.Attempted;
import dev.baton.internal.tx.Drain;
import dev.baton.internal.tx.SqlWork;
import dev.baton.spi.BatchUpdate;
import dev.baton.spi.BatchUpdateSpec;
import dev.baton.spi.Dialect;
import dev.baton.spi.Rows;
import dev.baton.spi.SqlFragment;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The queue's housekeeping: expired leases back to the claimable state (and expired sends to the unknown state), rows
 * past {@code maxAttempts} to the dead state, in bounded batches that skip locked rows, and the list of unknown sends
 * for reconciliation. Thread-safe.
 *
 * @param <S> the enum of states
 */
public final class Sweeps<S extends Enum<S>> {
    private static final Logger log = LoggerFactory.getLogger(Sweeps.class);

    /** Rows per sweep statement. */
    private static final int BATCH = 500;

    private final QueueShape<S> shape;
    private final BatchUpdateSpec reclaimSpec;
    private final BatchUpdate reclaim;
    private final BatchUpdate exhausted;
    /** The claimable rows with their attempts used up, read without locks; and the guard of their move. */
    private final SqlFragment putBackFind;

    private final SqlFragment putBackMove;
    private final BatchUpdate expireSends;
    /** When a Worker of this queue in this process last began a sweep ({@link System#nanoTime()}); MIN_VALUE: never. */
    private final AtomicLong lastWorkerSweep = new AtomicLong(Long.MIN_VALUE);

    /** The sweeps of the queue of {@code shape}, rendered once. */
    public Sweeps(QueueShape<S> shape) {
        this.shape = shape;
        int max = shape.retry.maxAttempts();
        // A row whose handler crashed the process or outlived its lease has used its attempt like a failed one: at
        // maxAttempts it goes to the dead state instead of back to the queue, so it cannot crash-loop (and block its
        // key) forever. Every sweep clears the token: a stale worker's write, or its read-back, can never match.
        this.reclaimSpec = sweepSpec(
                shape.processing,
                shape.claimable,
                true,
                new SqlFragment(shape.qAttempts + " < ?", List.of(max)),
                SqlFragment.of(""),
                "NULL");
        this.reclaim = shape.dialect.batchUpdate(reclaimSpec);
        this.exhausted = sweep(
                shape.processing,
                shape.dead,
                true,
                new SqlFragment(shape.qAttempts + " >= ?", List.of(max)),
                new SqlFragment(
                        ", " + shape.qError + " = ?",
                        List.of("lease expired on attempt " + max + " of " + max
                                + " (the handler crashed or outlived its lease)")));
        // A claimable row with its attempts used up (put back by a host's transition or an older version) is passed
        // over by the claim (QueueShape.claimWhere), which never hands out attempt maxAttempts + 1; this moves it to
        // the dead state, so it neither waits forever nor blocks its key. No index serves attempts, so finding such
        // rows reads every claimable row: it does so without locks (a locking read of a backlog of a million rows
        // filled MariaDB's buffer pool with lock structures until the server aborted), and the move is guarded by
        // the same conditions, so a row claimed in between is left alone. There are none in a queue only Baton
        // moves. The last error is kept: it says why the last attempt failed.
        int maxAttempts = max;
        SqlFragment spentRows = SqlFragment.join(
                " AND ",
                List.of(
                        shape.in(List.of(shape.claimable)),
                        new SqlFragment(shape.qAttempts + " >= ?", List.of(maxAttempts))));
        this.putBackFind = new SqlFragment(
                shape.dialect
                        .sql()
                        .firstRows(
                                "SELECT " + shape.qId + " FROM " + shape.qTable + " WHERE " + spentRows.sql(), BATCH),
                spentRows.binds());
        this.putBackMove = spentRows;
        // An expired send keeps in its lease column when its quarantine ends: lease + sendTimeout + margin. Its sender
        // may be alive and paused between its last check and its call; until then a reconciler that finds nothing at
        // the sink proves nothing, so unknownRows() does not offer the row.
        this.expireSends = shape.send
                .map(p -> sweep(
                        p.sending(),
                        p.unknown(),
                        true,
                        null,
                        SqlFragment.of(""),
                        shape.dialect
                                .sql()
                                .plusMillis(shape.qLease, quarantine(shape).toMillis())))
                .orElse(null);
    }

    /**
     * Returns rows whose lease expired to the claimable state, moves rows whose lease expired on their last attempt
     * and claimable rows with their attempts used up to the dead state, and moves rows whose lease expired while
     * sending to the unknown state; fires the listeners.
     *
     * @return rows reclaimed plus rows dead-lettered plus rows moved to unknown
     * @throws OutcomeInDoubtException after the sweep ran to the end, if a batch lost its reply (the count is then a
     *     lower bound, {@link OutcomeInDoubtException#atLeast()})
     */
    public long reclaimExpired() {
        Drain.Drained reclaimed =
                Drain.drain(shape.engine.tx(), "reclaim expired leases in queue '" + shape.name + "'", reclaim, BATCH);
        long moved = reclaimed.rows();
        if (moved > 0) {
            shape.engine.events().fire(l -> l.onReclaim(shape.name, moved));
        }
        Drain.Drained exhaustedRows = Drain.drain(
                shape.engine.tx(),
                "dead-letter expired leases past maxAttempts in queue '" + shape.name + "'",
                exhausted,
                BATCH);
        long expiredDead = exhaustedRows.rows();
        if (expiredDead > 0) {
            shape.engine
                    .events()
                    .fire(l -> l.onDeadLetter(shape.name, expiredDead, BatonListener.DeadLetterReason.LEASE_EXPIRED));
        }
        long dead = expiredDead;
        Drain.Drained putBackRows = deadLetterSpentClaimable();
        long spent = putBackRows.rows();
        if (spent > 0) {
            shape.engine
                    .events()
                    .fire(l -> l.onDeadLetter(shape.name, spent, BatonListener.DeadLetterReason.RETRIES_EXHAUSTED));
        }
        dead += spent;
        boolean inDoubt = reclaimed.countInDoubt() || exhaustedRows.countInDoubt() || putBackRows.countInDoubt();
        if (expireSends == null) {
            return certain(moved + dead, inDoubt);
        }
        Drain.Drained expired = Drain.drain(
                shape.engine.tx(), "move expired sends to unknown in queue '" + shape.name + "'", expireSends, BATCH);
        long lost = expired.rows();
        if (lost > 0) {
            log.warn(
                    "queue '{}': {} send(s) outlived their lease in the sending state and are now unknown; they are"
                            + " offered for reconciliation after a quarantine of {} ms",
                    shape.name,
                    lost,
                    quarantine(shape).toMillis());
            shape.engine.events().fire(l -> l.onUnknownSends(shape.name, lost));
        }
        return certain(moved + dead + lost, inDoubt || expired.countInDoubt());
    }

    /**
     * Whether a Worker's sweep should run now. The Workers of one queue in one process share its sweep, as they share
     * its rows: each sweep reads the queue's processing and claimable rows (the claimable ones with no index on the
     * attempts), so eight Workers started together run one sweep, not eight. True, and the turn taken, when no Worker
     * of this queue began a sweep within {@code minGapNanos}.
     */
    public boolean takeWorkerTurn(long minGapNanos) {
        long now = System.nanoTime();
        long last = lastWorkerSweep.get();
        return (last == Long.MIN_VALUE || now - last >= minGapNanos) && lastWorkerSweep.compareAndSet(last, now);
    }

    /** {@code total}, or an in-doubt exception carrying it as a lower bound: the count must not claim certainty. */
    private long certain(long total, boolean inDoubt) {
        if (inDoubt) {
            throw new OutcomeInDoubtException(
                    "reclaim expired leases in queue '" + shape.name + "': the connection was lost after a batch was"
                            + " sent; the sweep ran to the end, at least " + total + " row(s) moved",
                    total);
        }
        return total;
    }

    /** What an unknown send waits after its lease before a reconciler may look: the send timeout plus the margin. */
    public static Duration quarantine(QueueShape<?> shape) {
        return shape.sendTimeout().plus(shape.timing.margin());
    }

    /**
     * Moves the claimable rows with their attempts used up to the dead state, a batch at a time: their ids read without
     * locks, then, in one transaction, those of them no other transaction holds locked locked by id and one guarded
     * {@code UPDATE} by id. A batch whose reply was lost is run again (the guard keeps it from counting a row twice) and
     * the total becomes a lower bound.
     */
    private Drain.Drained deadLetterSpentClaimable() {
        String operation = "dead-letter claimable rows past maxAttempts in queue '" + shape.name + "'";
        boolean lost = false;
        long rows = 0;
        int batches = 0;
        while (true) {
            List<Object> ids = shape.engine.tx().autocommit(operation, c -> {
                List<Object> found = new ArrayList<>();
                try (PreparedStatement ps = c.prepareStatement(putBackFind.sql())) {
                    Rows.bind(ps, 1, putBackFind.binds());
                    try (ResultSet rs = ps.executeQuery()) {
                        while (rs.next()) {
                            found.add(rs.getObject(1));
                        }
                    }
                }
                return found;
            });
            batches++;
            if (ids.isEmpty()) {
                return new Drain.Drained(rows, batches, lost);
            }
            // the rows a transaction holds locked are left for the next sweep: waiting for one (a host's long
            // transaction) would stall the sweep, and the expired sends after it would not reach the unknown state
            String lock = shape.dialect.sql().lockUnlockedIds(shape.qTable, shape.qId, ids.size());
            SqlWork<Integer> move = c -> {
                List<Object> locked = new ArrayList<>();
                try (PreparedStatement ps = c.prepareStatement(lock)) {
                    Rows.bind(ps, 1, ids);
                    try (ResultSet rs = ps.executeQuery()) {
                        while (rs.next()) {
                            locked.add(rs.getObject(1));
                        }
                    }
                }
                if (locked.isEmpty()) {
                    return 0;
                }
                List<Object> binds = new ArrayList<>();
                binds.add(shape.machine.code(shape.dead));
                binds.addAll(locked);
                binds.addAll(putBackMove.binds());
                return Drain.update(c, putBackMoveSql(locked.size()), binds);
            };
            Attempted<Integer> attempted = shape.engine.tx().transactionReporting(operation, move);
            int moved = attempted.value();
            lost |= attempted.afterLostReply();
            rows += moved;
            if (ids.size() < BATCH || moved == 0) {
                return new Drain.Drained(
                        rows, batches, lost); // the end, or every row found was taken or locked meanwhile
            }
        }
    }

    /** {@code UPDATE … SET <dead> WHERE id IN (…) AND <the guard that found them>} for {@code count} ids. */
    private String putBackMoveSql(int count) {
        return "UPDATE " + shape.qTable + " SET " + shape.qState + " = ?, " + shape.qLease + " = NULL, " + shape.qToken
                + " = NULL WHERE " + shape.qId + " IN (" + Rows.placeholders(count) + ") AND " + putBackMove.sql();
    }

    private BatchUpdate sweep(S from, S to, boolean expired, SqlFragment attempts, SqlFragment moreSet) {
        return sweep(from, to, expired, attempts, moreSet, "NULL");
    }

    private BatchUpdate sweep(
            S from, S to, boolean expired, SqlFragment attempts, SqlFragment moreSet, String leaseValue) {
        return shape.dialect.batchUpdate(sweepSpec(from, to, expired, attempts, moreSet, leaseValue));
    }

    /**
     * The expiry sweep's batch (processing rows whose lease passed, back to claimable), for the planner's check of it
     * ({@link Inspection#verify}).
     */
    public BatchUpdateSpec expirySweep() {
        return reclaimSpec;
    }

    private BatchUpdateSpec sweepSpec(
            S from, S to, boolean expired, SqlFragment attempts, SqlFragment moreSet, String leaseValue) {
        Dialect d = shape.dialect;
        List<SqlFragment> conditions = new ArrayList<>();
        conditions.add(shape.in(List.of(from)));
        if (expired) {
            conditions.add(SqlFragment.of(shape.qLease + " < " + d.sql().currentTimestamp()));
        }
        if (attempts != null) {
            conditions.add(attempts);
        }
        SqlFragment where = SqlFragment.join(" AND ", conditions);
        List<Object> setBinds = new ArrayList<>();
        setBinds.add(shape.machine.code(to));
        setBinds.addAll(moreSet.binds());
        SqlFragment set = new SqlFragment(
                shape.qState + " = ?, " + shape.qLease + " = " + leaseValue + ", " + shape.qToken + " = NULL"
                        + moreSet.sql(),
                setBinds);
        return BatchUpdateSpec.builder(shape.qTable, shape.qId)
                .where(where)
                .set(set)
                .limit(BATCH)
                .build();
    }

    /**
     * Applies a "not sent" verdict to a row in the unknown state that has used {@code maxAttempts}: the row goes to
     * the dead state, as an expired last attempt does in the sweep, so a send that kills its worker every time cannot
     * loop forever through reconciliation. Guarded by the unknown state and the attempt count; one autocommit
     * statement.
     *
     * @return true when it moved the row; false when the row is not an exhausted unknown send (the caller then
     *     returns it to the claimable state)
     * @throws OutcomeInDoubtException when the reply was lost and the retry finds the row dead: this call or another
     *     reconciler moved it
     */
    public boolean deadLetterIfExhausted(Object id) {
        int max = shape.retry.maxAttempts();
        SqlFragment unknown = shape.unknownIn();
        String update = "UPDATE " + shape.qTable + " SET " + shape.qState + " = ?, " + shape.qLease + " = NULL, "
                + shape.qToken + " = NULL, " + shape.qError + " = ? WHERE " + shape.qId + " = ? AND " + unknown.sql()
                + " AND " + shape.qAttempts + " >= ?";
        List<Object> binds = new ArrayList<>();
        binds.add(shape.machine.code(shape.dead));
        binds.add("reconciled as not sent after attempt " + max + " of " + max + " (attempts exhausted)");
        binds.add(id);
        binds.addAll(unknown.binds());
        binds.add(max);
        String operation = "dead-letter an exhausted unknown send in queue '" + shape.name + "'";
        SqlWork<Boolean> afterLostReply = c -> {
            if (Drain.update(c, update, binds) == 1) {
                return true;
            }
            try (PreparedStatement ps = c.prepareStatement(
                    "SELECT " + shape.qState + " FROM " + shape.qTable + " WHERE " + shape.qId + " = ?")) {
                Rows.bind(ps, 1, List.of(id));
                try (ResultSet rs = ps.executeQuery()) {
                    if (rs.next() && shape.machine.fromCode(rs.getObject(1)).orElse(null) == shape.dead) {
                        throw new OutcomeInDoubtException(
                                operation + " id " + id + ": the connection was lost after"
                                        + " the update was sent, and the row is dead: this call or another reconciler moved it");
                    }
                }
            }
            return false;
        };
        return shape.engine.tx().autocommit(operation, c -> Drain.update(c, update, binds) == 1, afterLostReply);
    }

    /**
     * Ids of rows in the unknown state whose quarantine passed (the lease column, which holds its end, is NULL or
     * before the database's now), lowest id first, after {@code afterId} when given, at most {@code limit}.
     */
    public List<Object> unknownRows(Object afterId, int limit) {
        AdminPages.checkPage(limit, shape.name);
        if (shape.send.isEmpty()) {
            return List.of();
        }
        SqlFragment unknown = shape.unknownIn();
        String sql = "SELECT " + shape.qId + " FROM " + shape.qTable + " WHERE " + unknown.sql() + " AND ("
                + shape.qLease + " IS NULL OR " + shape.qLease + " < "
                + shape.dialect.sql().currentTimestamp() + ")"
                + (afterId == null ? "" : " AND " + shape.qId + " > ?") + " ORDER BY " + shape.qId;
        String limited = shape.dialect.sql().firstRows(sql, limit);
        List<Object> binds = new ArrayList<>(unknown.binds());
        if (afterId != null) {
            binds.add(afterId);
        }
        return shape.engine.tx().autocommit("list unknown sends in queue '" + shape.name + "'", c -> {
            List<Object> ids = new ArrayList<>();
            try (PreparedStatement ps = c.prepareStatement(limited)) {
                Rows.bind(ps, 1, binds);
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        ids.add(rs.getObject(1));
                    }
                }
            }
            return ids;
        });
    }
}
