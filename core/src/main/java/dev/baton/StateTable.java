package dev.baton;

import dev.baton.internal.Engine;
import dev.baton.internal.SchemaCheck;
import dev.baton.internal.TableDdl;
import dev.baton.internal.UsedColumns;
import dev.baton.internal.sql.TableStatements;
import dev.baton.internal.values.Identifiers;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * A state machine bound to a column of a host table. Immutable and thread-safe. Every transition is one guarded
 * statement, {@code UPDATE t SET state = :to … WHERE id = :id AND state IN (:allowed sources)}; SQL text is rendered
 * once per shape and cached.
 *
 * @param <S> the enum of states
 */
public final class StateTable<S extends Enum<S>> {
    private final Engine engine;
    private final String table;
    private final String idColumn;
    private final String stateColumn;
    private final StateMachine<S> machine;
    private final TableStatements<S> statements;

    StateTable(Engine engine, String table, String idColumn, String stateColumn, StateMachine<S> machine) {
        this.engine = engine;
        this.table = table;
        this.idColumn = idColumn;
        this.stateColumn = stateColumn;
        this.machine = machine;
        this.statements = new TableStatements<>(engine.dialect(), table, idColumn, stateColumn, machine);
    }

    /** The table name as configured. */
    public String table() {
        return table;
    }

    /** The id column. */
    public String idColumn() {
        return idColumn;
    }

    /** The state column. */
    public String stateColumn() {
        return stateColumn;
    }

    /** The state machine. */
    public StateMachine<S> machine() {
        return machine;
    }

    /**
     * A transition of row {@code id} from {@code from} to {@code to}.
     *
     * @throws IllegalTransitionException if the machine does not allow {@code from → to} (before any SQL)
     * @throws NullPointerException if an argument is null
     */
    public Transition<S> transition(Object id, S from, S to) {
        Objects.requireNonNull(id, "id");
        machine.checkTransition(from, to);
        return new Transition<>(engine, statements, id, EnumSet.of(from), to);
    }

    /**
     * A transition of row {@code id} to {@code to} from any of {@code from}.
     *
     * @throws IllegalTransitionException if the machine does not allow one of them (before any SQL)
     */
    public Transition<S> transition(Object id, Set<S> from, S to) {
        Objects.requireNonNull(id, "id");
        Objects.requireNonNull(from, "from");
        if (from.isEmpty()) {
            throw new ConfigurationException("transition to " + to + " names no source state");
        }
        for (S f : from) {
            machine.checkTransition(f, to);
        }
        return new Transition<>(engine, statements, id, EnumSet.copyOf(from), to);
    }

    /**
     * A transition of row {@code id} to {@code to} from whichever state the machine allows it from.
     *
     * @throws IllegalTransitionException if no state may move to {@code to}
     */
    public Transition<S> transition(Object id, S to) {
        Objects.requireNonNull(id, "id");
        Set<S> sources = machine.sourcesOf(to);
        if (sources.isEmpty()) {
            throw new IllegalTransitionException(machine.name(), to, to, "no state may move to " + to);
        }
        return new Transition<>(engine, statements, id, EnumSet.copyOf(sources), to);
    }

    /**
     * A bulk transition: every row in {@code from} (and matching the guards added with {@link BulkTransition#where})
     * moves to {@code to}, in bounded batches that skip rows other transactions hold locked.
     *
     * @throws IllegalTransitionException if the machine does not allow {@code from → to}
     */
    public BulkTransition<S> bulk(S from, S to) {
        machine.checkTransition(from, to);
        return new BulkTransition<>(engine, statements, EnumSet.of(from), to);
    }

    /** A guard {@code state IN (states)}, for bulk transitions and claim queues. */
    @SafeVarargs
    public final Condition is(S... states) {
        if (states.length == 0) {
            throw new ConfigurationException("is() needs at least one state");
        }
        List<Object> codes = new ArrayList<>();
        List<S> named = new ArrayList<>();
        for (S s : states) {
            codes.add(machine.code(s));
            named.add(s);
        }
        return new Condition.StateIn(stateColumn, codes, named);
    }

    /**
     * Reads the current state of row {@code id} (autocommit, on the data source).
     *
     * @return the state, or empty if no row has that id
     * @throws UnknownStateException if the stored code is not one of the machine's
     */
    public Optional<S> currentState(Object id) {
        Objects.requireNonNull(id, "id");
        return engine.tx().autocommit("read state of " + table + " id " + id, c -> statements.read(c, id, false));
    }

    /** Reads the current state of row {@code id} on the caller's connection. */
    public Optional<S> currentState(Connection connection, Object id) {
        Objects.requireNonNull(connection, "connection");
        Objects.requireNonNull(id, "id");
        try {
            return statements.read(connection, id, false);
        } catch (SQLException e) {
            throw new DataAccessException("read state of " + table + " id " + id, e);
        }
    }

    /**
     * Checks the table against {@link java.sql.DatabaseMetaData}: the table exists, the id column is a primary key or
     * unique, the state column exists with a type that holds the machine's codes. Same as {@link #verify(String...)}
     * with no columns.
     *
     * @throws SchemaMismatchException listing every problem and the DDL that fixes it: for a missing table the whole
     *     {@code CREATE TABLE} ({@link #createTableSql})
     */
    public void verify() {
        verify(new String[0]);
    }

    /**
     * Checks the table as {@link #verify()} does, and that it has {@code columnsUsed}: the columns your transitions
     * {@link Transition#set set} or {@link Transition#setNow setNow}, and your bulk transitions' guards name. A
     * transition learns of a missing column only when the database refuses it (then as a
     * {@link SchemaMismatchException} naming the column); listing them here finds every one at start-up.
     *
     * <pre>{@code
     * orders.verify("payment_transaction_id", "paid_at");
     * }</pre>
     *
     * For a missing column the DDL suggests a type: a timestamp for a name ending in {@code _at}, else short text;
     * change it to the type you write. A timestamp column among them must compare right with the database's UTC clock
     * (what {@link Condition#olderThan}, {@link Condition#due} and {@link Transition#setNow} use) whatever the session's
     * time zone, as a claim queue's {@code verify()} requires of its time columns: a type whose values depend on the
     * session zone (MySQL and MariaDB {@code TIMESTAMP}, PostgreSQL {@code timestamp} without time zone) and a default
     * of a local wall clock (MySQL and MariaDB {@code DATETIME DEFAULT CURRENT_TIMESTAMP}) are refused with the DDL
     * that fixes them. Also reports a session the dialect's detection would refuse ({@code Diagnostics.sessionProblems}:
     * a Galera node's {@code wsrep_sync_wait} without the read bit), which a dialect given explicitly skips. Runs on
     * the data source; thread-safe.
     *
     * @param columnsUsed other columns the code writes or reads (the id and state columns are always checked)
     * @throws SchemaMismatchException listing every problem and the DDL that fixes it: for a missing table the whole
     *     {@code CREATE TABLE} ({@link #createTableSql})
     * @throws InvalidIdentifierException if a name is not a plain identifier (before any SQL)
     */
    public void verify(String... columnsUsed) {
        UsedColumns used = used(columnsUsed);
        engine.tx().autocommit("verify " + table, c -> {
            SchemaCheck check = new SchemaCheck(c, engine.dialect(), table);
            if (!check.tableFound()) {
                throw new SchemaMismatchException(
                        table, List.of("table " + table + " does not exist"), createTableSql(columnsUsed));
            }
            check.requireUniqueKey(idColumn);
            check.requireStateColumn(stateColumn, machine);
            used.check(check, engine.dialect(), table);
            for (String column : columnsUsed) {
                // what queue.verify() checks for its time columns: olderThan, due and setNow compare and write the
                // database's UTC clock, which a zone-dependent type or a local-clock default disagrees with
                check.requireZoneSafeTimestamp(column, "time");
            }
            check.requireWriter();
            check.requireSession();
            check.throwIfProblems();
            return null;
        });
    }

    /**
     * The DDL of a table that fits this binding, in the dialect's SQL: {@code CREATE TABLE} with the id column as a
     * {@code BIGINT} primary key, the state column (integer, or text for string codes) and {@code columnsUsed} (typed
     * as {@link #verify(String...)} suggests). What {@code verify()} hands over when the table does not exist; change
     * the id's type if your ids are not numbers. Needs no connection.
     *
     * @param columnsUsed other columns the code writes or reads
     * @return the statements, in order (one)
     * @throws InvalidIdentifierException if a name is not a plain identifier
     */
    public List<String> createTableSql(String... columnsUsed) {
        TableDdl ddl = new TableDdl(engine.dialect(), table, idColumn).state(stateColumn, machine);
        used(columnsUsed).addTo(ddl);
        return ddl.render(List.of());
    }

    private UsedColumns used(String... columnsUsed) {
        UsedColumns used = new UsedColumns();
        for (String column : columnsUsed) {
            used.add(Identifiers.check(Objects.requireNonNull(column, "column")), null, "used by the code");
        }
        return used.without(List.of(idColumn, stateColumn));
    }

    Engine engine() {
        return engine;
    }

    TableStatements<S> statements() {
        return statements;
    }

    @Override
    public String toString() {
        return "StateTable[" + table + "." + stateColumn + ", " + machine.name() + "]";
    }
}
