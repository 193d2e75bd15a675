package dev.baton;

import dev.baton.internal.Engine;
import dev.baton.internal.Identifiers;
import dev.baton.spi.SqlError;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Savepoint;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * One guarded transition of one row, being prepared: optional extra columns set in the same statement, then
 * {@link #apply()} on the data source or {@link #apply(Connection)} inside the caller's transaction. Not thread-safe;
 * use it once.
 *
 * @param <S> the enum of states
 */
public final class Transition<S extends Enum<S>> {
    private final StateTable<S> table;
    private final Object id;
    private final List<S> sources;
    private final S target;
    private final List<String> columns = new ArrayList<>(2);
    private final List<Boolean> nows = new ArrayList<>(2);
    private final List<Object> values = new ArrayList<>(2);

    Transition(StateTable<S> table, Object id, Set<S> sources, S target) {
        this.table = table;
        this.id = id;
        this.sources = new ArrayList<>(EnumSet.copyOf(sources));
        this.target = target;
    }

    /**
     * Also sets {@code column = value} in the same statement (value may be null).
     *
     * @throws InvalidIdentifierException for a bad column name
     * @throws ConfigurationException if the column is the state column or is set twice
     */
    public Transition<S> set(String column, Object value) {
        add(column, false);
        values.add(value);
        return this;
    }

    /** Also sets {@code column} to the database clock's current timestamp. */
    public Transition<S> setNow(String column) {
        add(column, true);
        values.add(null);
        return this;
    }

    private void add(String column, boolean now) {
        Identifiers.quote(table.engine().dialect(), column);
        if (column.equalsIgnoreCase(table.stateColumn()) || column.equalsIgnoreCase(table.idColumn())) {
            throw new ConfigurationException("transition cannot set " + column + " directly (it is the "
                    + (column.equalsIgnoreCase(table.idColumn()) ? "id" : "state") + " column of " + table.table()
                    + ")");
        }
        for (String c : columns) {
            if (c.equalsIgnoreCase(column)) {
                throw new ConfigurationException("column " + column + " is set twice");
            }
        }
        columns.add(column);
        nows.add(now);
    }

    /** The table this transition is on. */
    StateTable<S> stateTable() {
        return table;
    }

    /** The SQL text this transition runs (values are bind parameters), for logs and exact-SQL tests. */
    public String sql() {
        return table.transitionSql(sources, columns, nows).sql();
    }

    /**
     * Runs the transition on the data source in its own autocommit statement, retrying transient failures; fires
     * listeners after it committed.
     *
     * @return what happened; never null
     * @throws UnknownStateException if the row holds a code the machine does not know
     * @throws DataAccessException on a non-transient database failure
     */
    public TransitionResult<S> apply() {
        Engine engine = table.engine();
        TransitionResult<S> result =
                engine.autocommit("transition " + table.table() + " id " + id + " to " + target, this::execute);
        if (engine.hasListeners()) {
            engine.fire(l -> l.onTransition(table.table(), result));
        }
        return result;
    }

    /**
     * Runs the transition on the caller's connection, inside its transaction if one is open. Never commits, rolls
     * back or retries. On PostgreSQL inside a transaction, the statement runs under a savepoint so that a unique
     * violation ({@link TransitionResult.Conflict}) leaves the caller's transaction usable.
     */
    public TransitionResult<S> apply(Connection connection) {
        Objects.requireNonNull(connection, "connection");
        try {
            boolean protect =
                    table.engine().dialect().traits().failedStatementAbortsTransaction() && !connection.getAutoCommit();
            if (!protect) {
                return execute(connection);
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
            return r;
        } catch (SQLException e) {
            throw new DataAccessException("transition " + table.table() + " id " + id + " to " + target, e);
        }
    }

    /** Runs the statement on {@code c} as it is (no savepoint, no listeners); a unique violation is a Conflict. */
    TransitionResult<S> execute(Connection c) throws SQLException {
        StateMachine<S> machine = table.machine();
        StateTable.RenderedTransition rendered = table.transitionSql(sources, columns, nows);
        int count;
        try (PreparedStatement ps = c.prepareStatement(rendered.sql())) {
            int i = 1;
            Engine.bindOne(ps, i++, machine.code(target));
            for (int k = 0; k < columns.size(); k++) {
                if (!nows.get(k)) {
                    Engine.bindOne(ps, i++, values.get(k));
                }
            }
            Engine.bindOne(ps, i++, id);
            for (Object code : rendered.guardBinds()) {
                Engine.bindOne(ps, i++, code);
            }
            count = ps.executeUpdate();
        } catch (SQLException e) {
            SqlError error = table.engine().dialect().diagnostics().classify(e);
            if (error.kind() == SqlError.Kind.UNIQUE_VIOLATION) {
                return new TransitionResult.Conflict<>(id, error.constraint());
            }
            throw e;
        }
        if (count == 1) {
            return new TransitionResult.Applied<>(id, target);
        }
        if (count > 1) {
            throw new DataAccessException("transition " + table.table() + " id " + id + " changed " + count + " rows: "
                    + table.idColumn() + " is not unique (StateTable.verify() reports this)");
        }
        Optional<S> current = table.read(c, id, true);
        if (current.isEmpty()) {
            return new TransitionResult.NotFound<>(id);
        }
        S now = current.get();
        return now == target
                ? new TransitionResult.AlreadyInTarget<>(id, now)
                : new TransitionResult.Rejected<>(id, now, target);
    }
}
