package dev.baton.internal.queue;

import dev.baton.ConfigurationException;
import dev.baton.DataAccessException;
import dev.baton.internal.UndefinedColumn;
import dev.baton.internal.tx.SqlWork;
import dev.baton.spi.BatchUpdate;
import dev.baton.spi.BatchUpdateSpec;
import dev.baton.spi.Param;
import dev.baton.spi.Rows;
import dev.baton.spi.SqlFragment;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Claims batches: renders the dialect's claim statement once per batch size, stamps a fresh fencing token per claim,
 * and maps the returned rows. Thread-safe.
 *
 * @param <S> the enum of states
 * @param <R> the claimed-row type the queue hands out
 */
public final class Claimer<S extends Enum<S>, R> {
    /** Makes the queue's row object from what a claim returned. */
    @FunctionalInterface
    public interface RowFactory<R> {
        /**
         * One claimed row; {@code startNanos} is the {@link System#nanoTime()} taken before the claim statement was
         * sent (the start of the row's local deadline).
         */
        R row(Object id, long token, int attempt, Map<String, Object> selected, long startNanos);
    }

    /**
     * The per-claim arguments of the claim statement, by name: its SET list binds them as {@link #PROCESSING_CODE} and
     * {@link #TOKEN}.
     */
    record ClaimArgs(Object processingCode, long token) {
        static final Param PROCESSING_CODE = new Param(0);
        static final Param TOKEN = new Param(1);

        /** The statement's argument array, in the order of the {@link Param} indexes. */
        Object[] toArray() {
            return new Object[] {processingCode, token};
        }
    }

    /** Positions in a returned row: id, attempts (after the claim), then the selected columns. */
    private static final int ID = 0;

    private static final int ATTEMPTS = 1;
    private static final int FIRST_SELECTED = 2;

    private final QueueShape<S> shape;
    private final RowFactory<R> rows;
    private final Object processingCode;
    private final String operation;
    private final ConcurrentMap<Integer, BatchUpdate> statements = new ConcurrentHashMap<>();
    private volatile String readBackSql;

    /** A claimer for the queue of {@code shape}. */
    public Claimer(QueueShape<S> shape, RowFactory<R> rows) {
        this.shape = shape;
        this.rows = rows;
        this.processingCode = shape.machine.code(shape.processing);
        this.operation = "claim from queue '" + shape.name + "'";
    }

    /**
     * Claims up to {@code batchSize} eligible, due rows on the data source (retrying transient failures).
     *
     * @throws ConfigurationException if {@code batchSize} is outside 1..the dialect's maximum
     */
    public List<R> claim(int batchSize) {
        BatchUpdate statement = statement(batchSize);
        ClaimArgs args = new ClaimArgs(processingCode, newToken());
        Object[] bound = args.toArray();
        // before the statement leaves: the database stamps the lease later than this, so a local deadline counted
        // from here ends before the lease (a retry after a lost reply only stamps later still)
        long start = System.nanoTime();
        // a queue with a non-idempotent sink reads the writer's epoch first, on the claim's connection: after a
        // failover, rows whose SENDING marks were lost go to reconciliation before any claim can take them
        SqlWork<List<Object[]>> work = c -> shape.epochs.beforeClaim(c)
                ? limited(c, batchSize, statement, bound)
                : List.<Object[]>of(); // a new writer was seen a moment ago: see EpochChange.HOLD
        // rows a lost attempt committed are read back even during a hold: they are this call's
        SqlWork<List<Object[]>> again =
                c -> readBackOrClaim(c, batchSize, statement, bound, args.token(), shape.epochs.beforeClaim(c));
        List<Object[]> returned = shape.claimLock == null
                ? shape.engine.tx().batchUpdate(operation, shape.rateLimiter != null, work, again)
                : shape.engine.tx().batchUpdateUnderLock(operation, shape.claimLock, work, again);
        if (returned.size() > batchSize) {
            // every dialect renders a bounded claim; this guards the invariant against a future regression
            throw new DataAccessException("claim returned " + returned.size() + " rows for a batch of " + batchSize);
        }
        List<String> select = shape.def.claiming().select();
        List<R> out = new ArrayList<>(returned.size());
        for (Object[] r : returned) {
            Map<String, Object> values = Map.of(); // most queues select nothing: no map per row
            if (!select.isEmpty()) {
                values = new LinkedHashMap<>();
                for (int i = 0; i < select.size(); i++) {
                    values.put(select.get(i), r[FIRST_SELECTED + i]);
                }
            }
            out.add(rows.row(r[ID], args.token(), ((Number) r[ATTEMPTS]).intValue(), values, start));
        }
        return out;
    }

    /**
     * The retry of a claim whose connection was lost: the lost attempt may have committed, holding rows under this
     * call's token that nobody would receive until their lease ends. The token is this call's receipt: rows holding it
     * in the processing state are read back and returned (in the claim's order); only if there are none is the claim
     * run again (if {@code claimIfNone}).
     */
    private List<Object[]> readBackOrClaim(
            Connection c, int batchSize, BatchUpdate statement, Object[] bound, long token, boolean claimIfNone)
            throws SQLException {
        String read = readBackSql;
        if (read == null) {
            List<String> order = shape.orderBy.subList(1, shape.orderBy.size()); // the state is one value here
            read = "SELECT " + String.join(", ", shape.returning) + " FROM " + shape.qTable + " WHERE " + shape.qToken
                    + " = ? AND " + shape.in(List.of(shape.processing)).sql()
                    + (order.isEmpty() ? "" : " ORDER BY " + String.join(", ", order));
            readBackSql = read;
        }
        List<Object> binds = new ArrayList<>();
        binds.add(token);
        binds.addAll(shape.in(List.of(shape.processing)).binds());
        List<Object[]> held = new ArrayList<>();
        try (PreparedStatement ps = c.prepareStatement(read)) {
            Rows.bind(ps, 1, binds);
            try (ResultSet rs = ps.executeQuery()) {
                int n = shape.returning.size();
                while (rs.next()) {
                    Object[] row = new Object[n];
                    for (int i = 0; i < n; i++) {
                        row[i] = rs.getObject(i + 1);
                    }
                    held.add(row);
                }
            }
        }
        if (held.isEmpty()) {
            return claimIfNone ? limited(c, batchSize, statement, bound) : List.of();
        }
        if (shape.rateLimiter != null) {
            shape.rateLimiter.notCut(); // the lost attempt committed, its tokens with it
        }
        return held;
    }

    /**
     * The claim of {@code batchSize} rows, within the queue's rate limit if it has one: in the claim's transaction,
     * the bucket is locked, the claim takes at most its whole tokens, and the bucket is moved by the rows taken.
     */
    private List<Object[]> limited(Connection c, int batchSize, BatchUpdate statement, Object[] bound)
            throws SQLException {
        RateLimiter limiter = shape.rateLimiter;
        if (limiter == null) {
            return statement.execute(c, bound);
        }
        RateLimiter.Taken taken = limiter.take(c, batchSize);
        List<Object[]> rows = taken.tokens() == 0
                ? List.of()
                : (taken.tokens() == batchSize ? statement : statement(taken.tokens())).execute(c, bound);
        limiter.spend(c, taken, rows.size(), batchSize);
        return rows;
    }

    /**
     * How long the rate limit asks the next claim on this thread to wait, in nanos: the time until the tokens of a
     * batch are back, after a claim the limit cut; 0 when there is no limit or it did not cut the last claim.
     */
    public long rateLimitWaitNanos() {
        return shape.rateLimiter == null ? 0 : shape.rateLimiter.waitNanos();
    }

    /** The SQL of a claim of {@code batchSize} rows: the rate limit's read, the claim, its insert and its spend. */
    public List<String> sql(int batchSize) {
        List<String> claim = statement(batchSize).sql();
        if (shape.rateLimiter == null) {
            return claim;
        }
        List<String> rate = shape.rateLimiter.sql();
        List<String> all = new ArrayList<>();
        all.add(rate.get(0));
        all.addAll(claim);
        all.addAll(rate.subList(1, rate.size()));
        return List.copyOf(all);
    }

    /** The cached claim statement of {@code batchSize} rows. */
    public BatchUpdate statement(int batchSize) {
        int max = shape.dialect.traits().maxBatchSize();
        if (batchSize < 1 || batchSize > max) {
            throw new ConfigurationException(
                    "batchSize must be 1.." + max + ", was " + batchSize + " (queue '" + shape.name + "')");
        }
        return statements.computeIfAbsent(
                batchSize,
                n -> UndefinedColumn.reported(shape.dialect, shape.table, shape.dialect.batchUpdate(spec(n))));
    }

    /** What the dialect renders a claim of {@code n} rows from. */
    public BatchUpdateSpec spec(int n) {
        SqlFragment set = new SqlFragment(
                shape.qState + " = ?, " + shape.qLease + " = " + shape.nowPlus(shape.timing.lease()) + ", "
                        + shape.qToken + " = ?, " + shape.qAttempts + " = " + shape.qAttempts + " + 1",
                List.of(ClaimArgs.PROCESSING_CODE, ClaimArgs.TOKEN));
        BatchUpdateSpec.Builder spec = BatchUpdateSpec.builder(shape.qTable, shape.qId)
                .where(shape.claimWhere)
                .set(set)
                .limit(n)
                .orderBy(shape.indexOrder)
                .returning(shape.returning)
                .returningBeforeUpdate(shape.returningBeforeUpdate);
        if (shape.pickGuard != null) {
            spec.pickGuard(shape.pickGuard);
        }
        if (shape.ranked) {
            spec.ranked(shape.candidates(n), shape.rankedOrderBy);
            BatchUpdateSpec.FairGroups fair = shape.fairGroups(n);
            if (fair != null) {
                spec.fairGroups(fair);
            }
        }
        return spec.build();
    }

    /** Arguments for a claim statement that is planned, not run (verify's plan check): token 0. */
    public Object[] planArgs() {
        return new ClaimArgs(processingCode, 0L).toArray();
    }

    private static long newToken() {
        return (ThreadLocalRandom.current().nextLong() >>> 1) + 1;
    }
}
