package dev.baton;

import dev.baton.internal.Engine;
import dev.baton.internal.sql.TableStatements;
import dev.baton.internal.tx.Drain;
import dev.baton.internal.values.Assignments;
import dev.baton.spi.BatchUpdate;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import org.jspecify.annotations.Nullable;

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

    private final Engine engine;
    private final TableStatements<S> statements;
    private final List<S> sources;
    private final S target;
    private final List<Condition> guards = new ArrayList<>();
    private Assignments extra = Assignments.NONE;
    private int batchSize = DEFAULT_BATCH_SIZE;

    BulkTransition(Engine engine, TableStatements<S> statements, Set<S> sources, S target) {
        this.engine = engine;
        this.statements = statements;
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

    /**
     * Also sets {@code column = value} on every moved row.
     *
     * @throws InvalidIdentifierException for a bad column name, or one longer than the database allows (before any SQL)
     * @throws ConfigurationException if the column is the id or state column or is set twice
     */
    public BulkTransition<S> set(String column, @Nullable Object value) {
        extra = statements.check(extra.set(column, value));
        return this;
    }

    /**
     * Also sets {@code column} to the database clock's timestamp on every moved row. The value is the database's clock in UTC: {@code clock_timestamp()} on PostgreSQL (for a
     * {@code timestamptz} column, an instant), {@code UTC_TIMESTAMP(6)} on MySQL and MariaDB and {@code
     * SYSUTCDATETIME()} on SQL Server (the UTC wall clock, for a {@code DATETIME(6)} or {@code datetime2} column), never
     * the session's or the JVM's zone. A MySQL {@code TIMESTAMP} column would store it as if it were the session zone's
     * wall clock: use {@code DATETIME(6)}; {@link StateTable#verify(String...) verify(column)} refuses such a column.
     *
     * @throws InvalidIdentifierException for a bad column name, or one longer than the database allows (before any SQL)
     * @throws ConfigurationException if the column is the id or state column or is set twice
     */
    public BulkTransition<S> setNow(String column) {
        extra = statements.check(extra.setNow(column));
        return this;
    }

    /**
     * Rows per batch, 1 to the dialect's maximum (1000; 500 on SQL Server). Default {@value #DEFAULT_BATCH_SIZE}.
     *
     * @throws ConfigurationException if out of range
     */
    public BulkTransition<S> batchSize(int rows) {
        int max = engine.dialect().traits().maxBatchSize();
        if (rows < 1 || rows > max) {
            throw new ConfigurationException("batchSize must be 1.." + max + ", was " + rows + " (bulk transition of "
                    + statements.table() + " to " + target + ")");
        }
        this.batchSize = rows;
        return this;
    }

    /** The SQL text of one batch, statement by statement (values are bind parameters), for logs and tests. */
    public List<String> sql() {
        return render().sql();
    }

    /**
     * Runs batches, each in its own transaction on the data source, until a batch comes back short. After a lost
     * connection the count is a lower bound ({@link BulkResult#countInDoubt()}).
     */
    public BulkResult apply() {
        BatchUpdate statement = render();
        String operation = "bulk transition " + statements.table() + " to " + target;
        Drain.Drained done = Drain.drain(engine.tx(), operation, statement, batchSize);
        if (done.rows() > 0 || done.countInDoubt()) {
            engine.wakeups()
                    .announce(engine.wakeups().queuesWokenBy(statements.table(), statements.stateColumn(), target));
        }
        engine.events().fire(l -> l.onBulkTransition(statements.table(), target, done.rows(), done.batches()));
        return new BulkResult(done.rows(), done.batches(), done.countInDoubt());
    }

    /** Runs batches on the caller's connection (in its transaction if one is open) until one comes back short. */
    public BulkResult apply(Connection connection) {
        Objects.requireNonNull(connection, "connection");
        BatchUpdate statement = render();
        try {
            Drain.Drained done = Drain.drain(connection, statement, batchSize);
            return new BulkResult(done.rows(), done.batches());
        } catch (SQLException e) {
            throw new DataAccessException("bulk transition " + statements.table() + " to " + target, e);
        }
    }

    /**
     * Checks that an index serves this bulk transition's state and guards, where the dialect can ask its planner
     * (SQL Server: each batch takes an update lock on every row it reads, and a scan of a large table escalates them
     * to a table lock that every worker and writer of the table waits for). Elsewhere it checks nothing. Run it once,
     * before the first {@link #apply()} on a large table; it compiles the batch's read, it runs nothing.
     *
     * @throws SchemaMismatchException naming the plan's scan (no DDL: which index serves depends on the guards)
     */
    public void verify() {
        String table = statements.table();
        Optional<String> problem = engine.tx()
                .autocommit("verify bulk transition " + table + " to " + target, c -> engine.dialect()
                        .diagnostics()
                        .batchPlanProblem(c, statements.bulkSpec(sources, guards, target, extra, batchSize)));
        if (problem.isPresent()) {
            throw new SchemaMismatchException(
                    table, List.of("bulk transition to " + target + ": " + problem.get()), List.of());
        }
    }

    private BatchUpdate render() {
        return statements.bulk(sources, guards, target, extra, batchSize);
    }
}
