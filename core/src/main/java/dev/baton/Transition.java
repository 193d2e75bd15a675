package dev.baton;

import dev.baton.internal.CommitWait;
import dev.baton.internal.Engine;
import dev.baton.internal.sql.TableStatements;
import dev.baton.internal.values.Assignments;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Savepoint;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * One guarded transition of one row, being prepared: optional extra columns set in the same statement, then
 * {@link #apply()} on the data source or {@link #apply(Connection)} inside the caller's transaction. Not thread-safe;
 * use it once.
 *
 * @param <S> the enum of states
 */
public final class Transition<S extends Enum<S>> {
    private final Engine engine;
    private final TableStatements<S> statements;
    private final Object id;
    private final List<S> sources;
    private final S target;
    private Assignments extra = Assignments.NONE;

    Transition(Engine engine, TableStatements<S> statements, Object id, Set<S> sources, S target) {
        this.engine = engine;
        this.statements = statements;
        this.id = id;
        this.sources = new ArrayList<>(EnumSet.copyOf(sources));
        this.target = target;
    }

    /**
     * Also sets {@code column = value} in the same statement (value may be null).
     *
     * @throws InvalidIdentifierException for a bad column name, or one longer than the database allows (before any SQL)
     * @throws ConfigurationException if the column is the id or state column or is set twice
     */
    public Transition<S> set(String column, @Nullable Object value) {
        extra = statements.check(extra.set(column, value));
        return this;
    }

    /**
     * Also sets {@code column} to the database clock's current timestamp. The value is the database's clock in UTC: {@code clock_timestamp()} on PostgreSQL (for a
     * {@code timestamptz} column, an instant), {@code UTC_TIMESTAMP(6)} on MySQL and MariaDB and {@code
     * SYSUTCDATETIME()} on SQL Server (the UTC wall clock, for a {@code DATETIME(6)} or {@code datetime2} column), never
     * the session's or the JVM's zone. A MySQL {@code TIMESTAMP} column would store it as if it were the session zone's
     * wall clock: use {@code DATETIME(6)}; {@link StateTable#verify(String...) verify(column)} refuses such a column.
     *
     * @throws InvalidIdentifierException for a bad column name, or one longer than the database allows (before any SQL)
     * @throws ConfigurationException if the column is the id or state column or is set twice
     */
    public Transition<S> setNow(String column) {
        extra = statements.check(extra.setNow(column));
        return this;
    }

    /** The table this transition is on, as configured. */
    String table() {
        return statements.table();
    }

    /** What {@link TransitionResult.Applied} reports for this transition, without running it. */
    TransitionResult.Applied<S> applied() {
        return new TransitionResult.Applied<>(id, target);
    }

    /** The SQL text this transition runs (values are bind parameters), for logs and exact-SQL tests. */
    public String sql() {
        return statements.transition(sources, extra).sql();
    }

    /**
     * Runs the transition on the data source in its own autocommit statement, retrying transient failures; fires
     * listeners after it committed. Inside a host transaction (see {@link Baton}), runs as {@link #apply(Connection)}
     * on that transaction's connection, and listeners wait for its commit.
     *
     * @return what happened; never null; {@link TransitionResult.InDoubt} when a lost connection leaves open whether
     *     this call moved the row
     * @throws UnknownStateException if the row holds a code the machine does not know
     * @throws DataAccessException on a non-transient database failure
     */
    public TransitionResult<S> apply() {
        String operation = "transition " + statements.table() + " id " + id + " to " + target;
        CommitWait wait = engine.commitWait();
        String[] notDurable = {null};
        TransitionResult<S> committed = engine.tx().joinOr(operation, this::apply, () -> engine.tx()
                .autocommit(
                        operation,
                        c -> awaitDurable(c, executeAndNotify(c), wait, notDurable),
                        c -> awaitDurable(c, inDoubt(execute(c)), wait, notDurable)));
        if (committed instanceof TransitionResult.Applied<S>) {
            engine.wakeups().wakeAfterCommit(wokenQueues());
            audit();
        }
        TransitionResult<S> result = wait.settle(engine.events(), operation, committed, notDurable[0]);
        if (engine.events().hasListeners()) {
            engine.events().fire(l -> l.onTransition(statements.table(), result));
        }
        return result;
    }

    /**
     * Runs the transition on the caller's connection, inside its transaction if one is open. Never commits, rolls
     * back or retries. On PostgreSQL inside a transaction, the statement runs under a savepoint so that a unique
     * violation ({@link TransitionResult.Conflict}) leaves the caller's transaction usable. Where the violation rolled
     * back the whole transaction instead (SQL Server with {@code SET XACT_ABORT ON}), no result is returned.
     *
     * @throws TransactionRolledBackException if the statement's error ended the caller's transaction
     */
    public TransitionResult<S> apply(Connection connection) {
        Objects.requireNonNull(connection, "connection");
        try {
            boolean protect =
                    engine.dialect().traits().failedStatementAbortsTransaction() && !connection.getAutoCommit();
            if (!protect) {
                return executeAndNotify(connection);
            }
            Savepoint sp = connection.setSavepoint();
            TransitionResult<S> r;
            try {
                r = execute(connection);
            } catch (SQLException | RuntimeException e) {
                connection.rollback(sp);
                throw e;
            }
            if (r instanceof TransitionResult.Conflict<S>) {
                connection.rollback(sp);
            }
            connection.releaseSavepoint(sp);
            if (r instanceof TransitionResult.Applied<S>) {
                engine.wakeups().notifyIn(connection, wokenQueues());
            }
            return r;
        } catch (SQLException e) {
            throw new DataAccessException("transition " + statements.table() + " id " + id + " to " + target, e);
        }
    }

    /**
     * After an autocommit run: when {@code r} is in the target state, waits on {@code c} for a standby to have the
     * commit ({@link CommitWait}) and leaves why not in {@code notDurable[0]}; the commit's own answer is returned.
     */
    private TransitionResult<S> awaitDurable(
            Connection c, TransitionResult<S> r, CommitWait wait, String[] notDurable) {
        notDurable[0] = r.inTarget() ? wait.await(c, engine.dialect().diagnostics()) : null;
        return r;
    }

    /**
     * Runs the transition and, when it applied, the notifications of the queues it makes rows claimable for, on the
     * same connection: in its transaction when one is open, else right after the transition committed.
     */
    private TransitionResult<S> executeAndNotify(Connection c) throws SQLException {
        TransitionResult<S> r = execute(c);
        if (r instanceof TransitionResult.Applied<S>) {
            engine.wakeups().notifyIn(c, wokenQueues());
        }
        return r;
    }

    /**
     * Records this applied transition for the failover audit ({@link Baton.Builder#failoverAudit}), when it is on:
     * at once, or after the host transaction it joined commits.
     */
    void audit() {
        engine.audit()
                .applied(
                        statements.table(),
                        statements.idColumn(),
                        statements.stateColumn(),
                        statements,
                        id,
                        sources,
                        target);
    }

    /** The queues built over this table whose rows this transition's target makes claimable. */
    List<String> wokenQueues() {
        return engine.wakeups().queuesWokenBy(statements.table(), statements.stateColumn(), target);
    }

    /**
     * The result of a run that follows a lost connection: the lost attempt may have committed, so a row found in the
     * target state is {@link TransitionResult.InDoubt}, never a certain {@link TransitionResult.AlreadyInTarget}.
     */
    static <S extends Enum<S>> TransitionResult<S> inDoubt(TransitionResult<S> r) {
        return r instanceof TransitionResult.AlreadyInTarget<S> a
                ? new TransitionResult.InDoubt<>(a.id(), a.state())
                : r;
    }

    /** Runs the statement on {@code c} as it is (no savepoint, no listeners); a unique violation is a Conflict. */
    TransitionResult<S> execute(Connection c) throws SQLException {
        return statements.transition(c, id, sources, target, extra);
    }
}
