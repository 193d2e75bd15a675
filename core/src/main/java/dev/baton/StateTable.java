package dev.baton;

import dev.baton.internal.Engine;
import dev.baton.internal.Identifiers;
import dev.baton.internal.SchemaCheck;
import dev.baton.spi.Dialect;
import dev.baton.spi.SqlFragment;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;

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
    private final String qTable;
    private final String qId;
    private final String qState;
    private final String readSql;
    private final String lockingReadSql;
    private final ConcurrentMap<String, RenderedTransition> sqlCache = new ConcurrentHashMap<>();

    StateTable(Engine engine, String table, String idColumn, String stateColumn, StateMachine<S> machine) {
        Dialect d = engine.dialect();
        this.engine = engine;
        this.table = table;
        this.idColumn = idColumn;
        this.stateColumn = stateColumn;
        this.machine = machine;
        this.qTable = Identifiers.quoteTable(d, table);
        this.qId = Identifiers.quote(d, idColumn);
        this.qState = Identifiers.quote(d, stateColumn);
        this.readSql = "SELECT " + qState + " FROM " + qTable + " WHERE " + qId + " = ?";
        this.lockingReadSql = d.ownTables().lockingSelect(qTable, qState, qId + " = ?");
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
        return new Transition<>(this, id, EnumSet.of(from), to);
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
        return new Transition<>(this, id, EnumSet.copyOf(from), to);
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
        return new Transition<>(this, id, EnumSet.copyOf(sources), to);
    }

    /**
     * A bulk transition: every row in {@code from} (and matching the guards added with {@link BulkTransition#where})
     * moves to {@code to}, in bounded batches that skip rows other transactions hold locked.
     *
     * @throws IllegalTransitionException if the machine does not allow {@code from → to}
     */
    public BulkTransition<S> bulk(S from, S to) {
        machine.checkTransition(from, to);
        return new BulkTransition<>(this, EnumSet.of(from), to);
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
        return engine.autocommit("read state of " + table + " id " + id, c -> read(c, id));
    }

    /** Reads the current state of row {@code id} on the caller's connection. */
    public Optional<S> currentState(Connection connection, Object id) {
        Objects.requireNonNull(connection, "connection");
        Objects.requireNonNull(id, "id");
        try {
            return read(connection, id);
        } catch (SQLException e) {
            throw new DataAccessException("read state of " + table + " id " + id, e);
        }
    }

    /**
     * Checks the table against {@link java.sql.DatabaseMetaData}: the table exists, the id column is a primary key or
     * unique, the state column exists with a type that holds the machine's codes.
     *
     * @throws SchemaMismatchException listing every problem and the DDL that fixes it
     */
    public void verify() {
        engine.autocommit("verify " + table, c -> {
            SchemaCheck check = new SchemaCheck(c, engine.dialect(), table);
            check.requireUniqueKey(idColumn);
            check.requireStateColumn(stateColumn, machine);
            check.throwIfProblems();
            return null;
        });
    }

    Optional<S> read(Connection c, Object id) throws SQLException {
        return read(c, id, false);
    }

    /**
     * Reads the state. After a guarded update matched nothing inside a caller's transaction, {@code latest} asks for a
     * locking read: a plain one may see the transaction's snapshot (MySQL and MariaDB at REPEATABLE READ) rather than
     * the state the update met. In autocommit mode every statement reads the latest row anyway, and takes no lock.
     */
    Optional<S> read(Connection c, Object id, boolean latest) throws SQLException {
        String sql = latest && !c.getAutoCommit() ? lockingReadSql : readSql;
        try (PreparedStatement ps = c.prepareStatement(sql)) {
            Engine.bindOne(ps, 1, id);
            try (ResultSet rs = ps.executeQuery()) {
                if (!rs.next()) {
                    return Optional.empty();
                }
                Object raw = rs.getObject(1);
                return Optional.of(machine.fromCode(raw)
                        .orElseThrow(() -> new UnknownStateException(table, stateColumn, id, raw, machine.name())));
            }
        }
    }

    Engine engine() {
        return engine;
    }

    String quotedTable() {
        return qTable;
    }

    String quotedId() {
        return qId;
    }

    String quotedState() {
        return qState;
    }

    /**
     * The UPDATE for a shape: the source states and the extra assignments; cached. Binds: target code, extra values
     * (in order, skipping database-clock columns), id, then the guard's binds.
     */
    RenderedTransition transitionSql(List<S> sources, List<String> columns, List<Boolean> nows) {
        StringBuilder key = new StringBuilder();
        for (S s : sources) {
            key.append(s.ordinal()).append(',');
        }
        for (int i = 0; i < columns.size(); i++) {
            key.append(nows.get(i) ? ";n:" : ";v:").append(columns.get(i));
        }
        return sqlCache.computeIfAbsent(key.toString(), k -> {
            Dialect d = engine.dialect();
            List<Object> codes = new ArrayList<>();
            for (S s : sources) {
                codes.add(machine.code(s));
            }
            SqlFragment guard = d.sql().stateIn(qState, codes);
            StringBuilder sql = new StringBuilder("UPDATE ")
                    .append(qTable)
                    .append(" SET ")
                    .append(qState)
                    .append(" = ?");
            for (int i = 0; i < columns.size(); i++) {
                sql.append(", ").append(Identifiers.quote(d, columns.get(i))).append(" = ");
                sql.append(nows.get(i) ? d.sql().currentTimestamp() : "?");
            }
            sql.append(" WHERE ").append(qId).append(" = ? AND ").append(guard.sql());
            return new RenderedTransition(sql.toString(), guard.binds());
        });
    }

    /** A rendered transition: its SQL and the guard's bind values. */
    record RenderedTransition(String sql, List<Object> guardBinds) {}

    @Override
    public String toString() {
        return "StateTable[" + table + "." + stateColumn + ", " + machine.name() + "]";
    }
}
