package dev.baton;

import dev.baton.internal.Conditions;
import dev.baton.internal.Engine;
import dev.baton.internal.Identifiers;
import dev.baton.spi.BatchUpdate;
import dev.baton.spi.BatchUpdateSpec;
import dev.baton.spi.Dialect;
import dev.baton.spi.SqlFragment;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.Set;

/**
 * Moves every row in the source states that matches the guards to the target state, in batches of at most
 * {@link #batchSize(int)} rows, each batch one statement that re-checks the guard and skips rows that other
 * transactions hold locked (they are left for the next run). Typical use, an expiry sweep:
 *
 * <pre>{@code
 * orders.bulk(Payment.PENDING, Payment.EXPIRED)
 *     .where(Condition.olderThan("created_at", Duration.ofMinutes(15)))
 *     .setNow("expired_at")
 *     .apply();
 * }</pre>
 *
 * Not thread-safe; use it once.
 *
 * @param <S> the enum of states
 */
public final class BulkTransition<S extends Enum<S>> {
    /** Default rows per batch. */
    public static final int DEFAULT_BATCH_SIZE = 500;

    private final StateTable<S> table;
    private final List<S> sources;
    private final S target;
    private final List<Condition> guards = new ArrayList<>();
    private final List<String> columns = new ArrayList<>();
    private final List<Object> values = new ArrayList<>();
    private final List<Boolean> nows = new ArrayList<>();
    private int batchSize = DEFAULT_BATCH_SIZE;

    BulkTransition(StateTable<S> table, Set<S> sources, S target) {
        this.table = table;
        this.sources = new ArrayList<>(sources);
        this.target = target;
    }

    /** Adds guards; all must hold. */
    public BulkTransition<S> where(Condition... conditions) {
        for (Condition c : conditions) {
            guards.add(Objects.requireNonNull(c, "condition"));
        }
        return this;
    }

    /** Also sets {@code column = value} on every moved row. */
    public BulkTransition<S> set(String column, Object value) {
        Identifiers.quote(table.engine().dialect(), column);
        columns.add(column);
        values.add(value);
        nows.add(false);
        return this;
    }

    /** Also sets {@code column} to the database clock's timestamp on every moved row. */
    public BulkTransition<S> setNow(String column) {
        Identifiers.quote(table.engine().dialect(), column);
        columns.add(column);
        values.add(null);
        nows.add(true);
        return this;
    }

    /**
     * Rows per batch, 1 to the dialect's maximum (1000; 500 on SQL Server). Default {@value #DEFAULT_BATCH_SIZE}.
     *
     * @throws ConfigurationException if out of range
     */
    public BulkTransition<S> batchSize(int rows) {
        int max = table.engine().dialect().traits().maxBatchSize();
        if (rows < 1 || rows > max) {
            throw new ConfigurationException("batchSize must be 1.." + max + ", was " + rows + " (bulk transition of "
                    + table.table() + " to " + target + ")");
        }
        this.batchSize = rows;
        return this;
    }

    /** The SQL text of one batch, statement by statement (values are bind parameters), for logs and tests. */
    public List<String> sql() {
        return render().sql();
    }

    /** Runs batches, each in its own transaction on the data source, until a batch comes back short. */
    public BulkResult apply() {
        BatchUpdate statement = render();
        Engine engine = table.engine();
        long rows = 0;
        int batches = 0;
        while (true) {
            String operation = "bulk transition " + table.table() + " to " + target;
            int moved = !table.engine().dialect().traits().batchUpdateIsAtomic()
                    ? engine.transaction(
                            operation, c -> statement.execute(c, new Object[0]).size())
                    : engine.autocommit(
                            operation, c -> statement.execute(c, new Object[0]).size());
            rows += moved;
            batches++;
            if (moved < batchSize) {
                break;
            }
        }
        long total = rows;
        int count = batches;
        engine.fire(l -> l.onBulkTransition(table.table(), target, total, count));
        return new BulkResult(rows, batches);
    }

    /** Runs batches on the caller's connection (in its transaction if one is open) until one comes back short. */
    public BulkResult apply(Connection connection) {
        Objects.requireNonNull(connection, "connection");
        BatchUpdate statement = render();
        long rows = 0;
        int batches = 0;
        try {
            while (true) {
                int moved = statement.execute(connection, new Object[0]).size();
                rows += moved;
                batches++;
                if (moved < batchSize) {
                    return new BulkResult(rows, batches);
                }
            }
        } catch (SQLException e) {
            throw new DataAccessException("bulk transition " + table.table() + " to " + target, e);
        }
    }

    private BatchUpdate render() {
        Dialect d = table.engine().dialect();
        StateMachine<S> m = table.machine();
        List<Condition> all = new ArrayList<>();
        List<Object> codes = new ArrayList<>();
        for (S s : sources) {
            codes.add(m.code(s));
        }
        all.add(new Condition.StateIn(table.stateColumn(), codes, sources));
        all.addAll(guards);
        SqlFragment where = Conditions.and(d, all);
        List<SqlFragment> sets = new ArrayList<>();
        sets.add(new SqlFragment(table.quotedState() + " = ?", Arrays.asList(m.code(target))));
        for (int i = 0; i < columns.size(); i++) {
            String q = Identifiers.quote(d, columns.get(i));
            sets.add(
                    nows.get(i)
                            ? SqlFragment.of(q + " = " + d.sql().currentTimestamp())
                            : new SqlFragment(q + " = ?", Arrays.asList(values.get(i))));
        }
        // a sweep needs no order; leaving it out lets the database use the state index
        return d.batchUpdate(BatchUpdateSpec.builder(table.quotedTable(), table.quotedId())
                .where(where)
                .set(SqlFragment.join(", ", sets))
                .limit(batchSize)
                .build());
    }
}
