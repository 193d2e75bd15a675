package dev.baton.internal.queue;

import dev.baton.BulkResult;
import dev.baton.ConfigurationException;
import dev.baton.DeadRow;
import dev.baton.DeadRowPage;
import dev.baton.TransitionResult;
import dev.baton.UnknownStateException;
import dev.baton.internal.tx.Attempted;
import dev.baton.internal.tx.Drain;
import dev.baton.internal.tx.SqlWork;
import dev.baton.spi.BatchUpdate;
import dev.baton.spi.BatchUpdateSpec;
import dev.baton.spi.Rows;
import dev.baton.spi.SqlFragment;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import org.jspecify.annotations.Nullable;

/**
 * The operator's view of a queue's dead rows: list them with their reason, count them, and requeue them. A requeue is
 * a guarded move out of the dead state only ({@code WHERE id = ? AND state = dead}), so two operators cannot both
 * requeue a row and a row that left the dead state is never touched. It gives the row a fresh start: claimable, due at
 * once, {@code attempts = 0}, lease and token cleared; the error column is kept until the next attempt writes its own.
 * Thread-safe.
 *
 * @param <S> the enum of states
 */
public final class DeadLetterStatements<S extends Enum<S>> {
    private final QueueShape<S> shape;
    private final SqlFragment isDead;
    private final String list;
    private final String listAfter;
    private final String fromDead;
    private final String requeue;
    /** {@link #requeue} that leaves a row that may have been sent dead; the same statement without a sending state. */
    private final String requeueUnlessSent;
    /** {@code (error IS NULL OR error NOT LIKE 'may have been sent: %')}, or null without a sending state. */
    private final SqlFragment notMaybeSent;

    private final List<Object> requeueBinds;
    private final String readState;
    private final ConcurrentMap<Integer, BatchUpdate> requeueBatches = new ConcurrentHashMap<>();
    private final ConcurrentMap<Integer, BatchUpdate> requeueUnsentBatches = new ConcurrentHashMap<>();

    /** The dead-letter operations of the queue of {@code shape}, rendered once. */
    public DeadLetterStatements(QueueShape<S> shape) {
        this.shape = shape;
        this.isDead = shape.in(List.of(shape.dead));
        String columns = String.join(", ", columns());
        this.list = "SELECT " + columns + " FROM " + shape.qTable + " WHERE " + isDead.sql() + " ORDER BY " + shape.qId;
        this.listAfter = "SELECT " + columns + " FROM " + shape.qTable + " WHERE " + isDead.sql() + " AND " + shape.qId
                + " > ? ORDER BY " + shape.qId;
        this.fromDead = "FROM " + shape.qTable + " WHERE " + isDead.sql();
        this.requeue =
                "UPDATE " + shape.qTable + " SET " + freshStart() + " WHERE " + shape.qId + " = ? AND " + isDead.sql();
        // only a queue with a non-idempotent sink stores rows that may have been sent
        this.notMaybeSent = shape.send
                .map(p -> new SqlFragment(
                        "(" + shape.qError + " IS NULL OR " + shape.qError + " NOT LIKE ?)",
                        List.of(DeadRow.MAY_HAVE_BEEN_SENT + "%")))
                .orElse(null);
        this.requeueUnlessSent = notMaybeSent == null ? requeue : requeue + " AND " + notMaybeSent.sql();
        this.requeueBinds = List.of(shape.machine.code(shape.claimable));
        this.readState = "SELECT " + shape.qState + " FROM " + shape.qTable + " WHERE " + shape.qId + " = ?";
    }

    private List<String> columns() {
        List<String> columns = new ArrayList<>(List.of(shape.qId, shape.qAttempts, shape.qError));
        columns.addAll(shape.returning.subList(2, shape.returning.size())); // the selected columns
        return columns;
    }

    /** {@code state = claimable, lease = NULL, token = NULL, attempts = 0, next_attempt_at = NULL}; one bind. */
    private String freshStart() {
        return shape.qState + " = ?, " + shape.qLease + " = NULL, " + shape.qToken + " = NULL, " + shape.qAttempts
                + " = 0, " + shape.qNext + " = NULL";
    }

    /**
     * Dead rows, lowest id first, after {@code afterId} when it is not null, at most {@code limit} (in the SQL: the
     * keyset on the id with the state predicate reads no more index entries than it returns).
     */
    public List<DeadRow> list(Object afterId, int limit) {
        AdminPages.checkPage(limit, shape.name);
        List<Object> binds = new ArrayList<>(isDead.binds());
        if (afterId != null) {
            binds.add(afterId);
        }
        String sql = shape.dialect.sql().firstRows(afterId == null ? list : listAfter, limit);
        List<String> select = shape.def.claiming().select();
        return shape.engine.reader().tx().autocommit("list dead rows in queue '" + shape.name + "'", c -> {
            List<DeadRow> rows = new ArrayList<>();
            try (PreparedStatement ps = c.prepareStatement(sql)) {
                Rows.bind(ps, 1, binds);
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        Map<String, Object> values = new LinkedHashMap<>();
                        for (int i = 0; i < select.size(); i++) {
                            values.put(select.get(i), rs.getObject(4 + i));
                        }
                        rows.add(new DeadRow(rs.getObject(1), rs.getInt(2), rs.getString(3), values));
                    }
                }
            }
            return rows;
        });
    }

    /** The most dead rows one page of a search looks at. */
    public static final int SEARCH_SCAN = 10_000;
    /** The longest search text. */
    public static final int SEARCH_TEXT = 200;

    /**
     * A page of a search: the window of the next {@link #SEARCH_SCAN} dead rows in the order asked (its far end and its
     * size, by the state and id index), then the rows of the window whose error matches, at most {@code limit}.
     */
    public DeadRowPage search(@Nullable String contains, boolean descending, @Nullable Object afterId, int limit) {
        AdminPages.checkPage(limit, shape.name);
        if (contains != null && (contains.isEmpty() || contains.length() > SEARCH_TEXT)) {
            throw new ConfigurationException("the search text must be 1.." + SEARCH_TEXT + " characters, was "
                    + contains.length() + " (queue '" + shape.name + "')");
        }
        String after = afterId == null ? "" : " AND " + shape.qId + (descending ? " < ?" : " > ?");
        String order = " ORDER BY " + shape.qId + (descending ? " DESC" : "");
        String window = "SELECT " + (descending ? "MIN" : "MAX") + "(baton_w.baton_id), COUNT(*) FROM ("
                + shape.dialect
                        .sql()
                        .firstRows("SELECT " + shape.qId + " AS baton_id " + fromDead + after + order, SEARCH_SCAN)
                + ") baton_w";
        String match = contains == null
                ? ""
                // '!' escapes: the same ESCAPE clause on every database, and no backslash for MySQL to read
                : " AND LOWER(" + shape.qError + ") LIKE ? ESCAPE '!'";
        String rowsSql = shape.dialect
                .sql()
                .firstRows(
                        "SELECT " + String.join(", ", columns()) + " " + fromDead + after + " AND " + shape.qId
                                + (descending ? " >= ?" : " <= ?") + match + order,
                        limit);
        List<String> select = shape.def.claiming().select();
        return shape.engine.reader().tx().autocommit("search dead rows in queue '" + shape.name + "'", c -> {
            List<Object> binds = new ArrayList<>(isDead.binds());
            if (afterId != null) {
                binds.add(afterId);
            }
            if (contains == null) {
                // every row matches: the page is its own window
                List<DeadRow> rows = readDead(c, shapeRows(after, order, limit), binds, select);
                Object next = rows.size() == limit ? rows.get(rows.size() - 1).id() : null;
                return new DeadRowPage(rows, next, rows.size());
            }
            Object edge;
            int scanned;
            try (PreparedStatement ps = c.prepareStatement(window)) {
                Rows.bind(ps, 1, binds);
                try (ResultSet rs = ps.executeQuery()) {
                    rs.next();
                    edge = rs.getObject(1);
                    scanned = rs.getInt(2);
                }
            }
            if (edge == null || scanned == 0) {
                return new DeadRowPage(List.of(), null, 0);
            }
            binds.add(edge);
            if (contains != null) {
                binds.add("%"
                        + contains.toLowerCase(Locale.ROOT)
                                .replace("!", "!!")
                                .replace("%", "!%")
                                .replace("_", "!_")
                        + "%");
            }
            List<DeadRow> rows = readDead(c, rowsSql, binds, select);
            Object next = rows.size() == limit ? rows.get(rows.size() - 1).id() : scanned == SEARCH_SCAN ? edge : null;
            return new DeadRowPage(rows, next, scanned);
        });
    }

    private String shapeRows(String after, String order, int limit) {
        return shape.dialect
                .sql()
                .firstRows("SELECT " + String.join(", ", columns()) + " " + fromDead + after + order, limit);
    }

    private static List<DeadRow> readDead(Connection c, String sql, List<Object> binds, List<String> select)
            throws SQLException {
        List<DeadRow> rows = new ArrayList<>();
        try (PreparedStatement ps = c.prepareStatement(sql)) {
            Rows.bind(ps, 1, binds);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    Map<String, Object> values = new LinkedHashMap<>();
                    for (int i = 0; i < select.size(); i++) {
                        values.put(select.get(i), rs.getObject(4 + i));
                    }
                    rows.add(new DeadRow(rs.getObject(1), rs.getInt(2), rs.getString(3), values));
                }
            }
        }
        return rows;
    }

    /** The number of rows in the dead state, counted up to {@code limit}. */
    public long count(int limit) {
        return AdminPages.count(
                shape, fromDead, isDead.binds(), limit, "count dead rows in queue '" + shape.name + "'");
    }

    /**
     * Requeues one dead row. {@code Applied} when this call moved it; otherwise the row's state as a transition reports
     * it: {@code AlreadyInTarget} (claimable: requeued by someone else), {@code Rejected} (any other state, and the
     * dead state itself for a row that may have been sent, unless {@code which} includes those), {@code NotFound};
     * after a lost reply a claimable row is {@code InDoubt}.
     */
    public TransitionResult<S> requeue(Object id, DeadRow.Requeue which) {
        boolean all = which == DeadRow.Requeue.EVEN_IF_MAYBE_SENT || notMaybeSent == null;
        String sql = all ? requeue : requeueUnlessSent;
        List<Object> binds = new ArrayList<>(requeueBinds);
        binds.add(id);
        binds.addAll(isDead.binds());
        if (!all) {
            binds.addAll(notMaybeSent.binds());
        }
        String operation = "requeue dead row " + id + " in queue '" + shape.name + "'";
        SqlWork<TransitionResult<S>> work = c -> requeue(c, sql, id, binds, false);
        TransitionResult<S> r = shape.engine.tx().autocommit(operation, work, c -> requeue(c, sql, id, binds, true));
        if (r instanceof TransitionResult.Applied<S>) {
            shape.engine.wakeups().announce(List.of(shape.name));
        }
        return r;
    }

    private TransitionResult<S> requeue(Connection c, String sql, Object id, List<Object> binds, boolean afterLostReply)
            throws SQLException {
        if (Drain.update(c, sql, binds) == 1) {
            return new TransitionResult.Applied<>(id, shape.claimable);
        }
        Optional<S> current = currentState(c, id);
        if (current.isEmpty()) {
            return new TransitionResult.NotFound<>(id);
        }
        S state = current.get();
        if (state != shape.claimable) {
            return new TransitionResult.Rejected<>(id, state, shape.claimable);
        }
        // claimable: another operator requeued it, or (after a lost reply) this call's first attempt may have
        return afterLostReply
                ? new TransitionResult.InDoubt<>(id, state)
                : new TransitionResult.AlreadyInTarget<>(id, state);
    }

    private Optional<S> currentState(Connection c, Object id) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(readState)) {
            Rows.bind(ps, 1, List.of(id));
            try (ResultSet rs = ps.executeQuery()) {
                if (!rs.next()) {
                    return Optional.empty();
                }
                Object raw = rs.getObject(1);
                return Optional.of(shape.machine
                        .fromCode(raw)
                        .orElseThrow(() -> new UnknownStateException(
                                shape.table, shape.def.columns().state(), id, raw, shape.machine.name())));
            }
        }
    }

    /**
     * Requeues up to {@code limit} dead rows, lowest id first, in one bounded statement that skips rows other
     * transactions hold locked, and rows that may have been sent unless {@code which} includes them.
     */
    public BulkResult requeueAll(int limit, DeadRow.Requeue which) {
        int max = shape.dialect.traits().maxBatchSize();
        if (limit < 1 || limit > max) {
            throw new ConfigurationException(
                    "limit must be 1.." + max + ", was " + limit + " (queue '" + shape.name + "')");
        }
        boolean all = which == DeadRow.Requeue.EVEN_IF_MAYBE_SENT || notMaybeSent == null;
        SqlFragment where = all ? isDead : SqlFragment.join(" AND ", List.of(isDead, notMaybeSent));
        BatchUpdate statement = (all ? requeueBatches : requeueUnsentBatches)
                .computeIfAbsent(
                        limit,
                        n -> shape.dialect.batchUpdate(BatchUpdateSpec.builder(shape.qTable, shape.qId)
                                .where(where)
                                .set(new SqlFragment(freshStart(), requeueBinds))
                                .limit(n)
                                .orderBy(List.of(shape.qId))
                                .build()));
        Object[] noArgs = new Object[0];
        // after a lost reply, the lost batch may have committed: its rows are claimable now, not counted
        Attempted<Integer> moved = shape.engine
                .tx()
                .batchUpdateReporting(
                        "requeue dead rows in queue '" + shape.name + "'",
                        c -> statement.execute(c, noArgs).size());
        if (moved.value() > 0 || moved.afterLostReply()) {
            shape.engine.wakeups().announce(List.of(shape.name));
        }
        return new BulkResult(moved.value(), 1, moved.afterLostReply());
    }
}
