package dev.baton.internal.sql;

import dev.baton.Condition;
import dev.baton.DataAccessException;
import dev.baton.StateMachine;
import dev.baton.TransactionRolledBackException;
import dev.baton.TransitionResult;
import dev.baton.UnknownStateException;
import dev.baton.internal.Conditions;
import dev.baton.internal.SchemaCheck;
import dev.baton.internal.UndefinedColumn;
import dev.baton.internal.tx.Connections;
import dev.baton.internal.values.Assignments;
import dev.baton.internal.values.Identifiers;
import dev.baton.spi.BatchUpdate;
import dev.baton.spi.BatchUpdateSpec;
import dev.baton.spi.Dialect;
import dev.baton.spi.Rows;
import dev.baton.spi.SqlError;
import dev.baton.spi.SqlFragment;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;

/**
 * The statements of a state table: the guarded transition {@code UPDATE t SET state = ?, extra… WHERE id = ? AND
 * state IN (sources)} (rendered once per shape and cached), the plain and the locking read of a row's state, and the
 * bounded batch update of a bulk transition. Immutable and thread-safe.
 *
 * @param <S> the enum of states
 */
public final class TableStatements<S extends Enum<S>> {
    private final Dialect dialect;
    private final String table;
    private final String idColumn;
    private final String stateColumn;
    private final StateMachine<S> machine;
    private final String qTable;
    private final String qId;
    private final String qState;
    /**
     * The id column's type as the database names it, read once where the dialect types text binds by their column
     * ({@link dev.baton.spi.SqlVocabulary#typesTextParams}); null until read.
     */
    private volatile String idType;

    private final Set<String> managed;
    private final String owner;
    private final ConcurrentMap<String, Rendered> transitions = new ConcurrentHashMap<>();

    /** Renders the table's fixed statements. */
    public TableStatements(
            Dialect dialect, String table, String idColumn, String stateColumn, StateMachine<S> machine) {
        this.dialect = dialect;
        this.table = table;
        this.idColumn = idColumn;
        this.stateColumn = stateColumn;
        this.machine = machine;
        this.qTable = Identifiers.quoteTable(dialect, table);
        this.qId = Identifiers.quote(dialect, idColumn);
        this.qState = Identifiers.quote(dialect, stateColumn);
        this.managed = Set.of(Assignments.lower(idColumn), Assignments.lower(stateColumn));
        this.owner = "the transition (it is the id or state column of " + table + ")";
    }

    /** The table, as configured. */
    public String table() {
        return table;
    }

    /** The id column, as configured. */
    public String idColumn() {
        return idColumn;
    }

    /** The state column, as configured. */
    public String stateColumn() {
        return stateColumn;
    }

    /**
     * Refuses assignments to the id or state column, and columns whose names the database would refuse.
     *
     * @throws dev.baton.ConfigurationException naming the column
     * @throws dev.baton.InvalidIdentifierException for a name longer than the dialect allows
     */
    public Assignments check(Assignments extra) {
        return extra.refuse(managed, owner).fitting(dialect);
    }

    /** A rendered transition: its SQL and the guard's bind values. */
    public record Rendered(String sql, List<Object> guardBinds) {}

    /**
     * The UPDATE for a shape: the source states and the extra assignments; cached. Binds: target code, extra values,
     * id, then the guard's binds.
     */
    public Rendered transition(List<S> sources, Assignments extra) {
        return transition(sources, extra, "?");
    }

    /** {@link #transition(List, Assignments)} with the id bound as {@code idParam}. */
    private Rendered transition(List<S> sources, Assignments extra, String idParam) {
        StringBuilder key = new StringBuilder(idParam).append('|');
        for (S s : sources) {
            key.append(s.ordinal()).append(',');
        }
        key.append(extra.key());
        return transitions.computeIfAbsent(key.toString(), k -> {
            SqlFragment guard = dialect.sql().stateIn(qState, codes(sources));
            StringBuilder sql = new StringBuilder("UPDATE ")
                    .append(qTable)
                    .append(" SET ")
                    .append(qState)
                    .append(" = ?");
            extra.render(dialect, sql);
            sql.append(" WHERE ")
                    .append(qId)
                    .append(" = ")
                    .append(idParam)
                    .append(" AND ")
                    .append(guard.sql());
            return new Rendered(sql.toString(), guard.binds());
        });
    }

    /**
     * Runs a transition on {@code c} as it is (no savepoint, no retry); a unique violation is a Conflict, a 0-row
     * update is explained by reading the row.
     */
    public TransitionResult<S> transition(Connection c, Object id, List<S> sources, S target, Assignments extra)
            throws SQLException {
        Rendered rendered = transition(sources, check(extra), idParam(c, id));
        List<Object> binds = new ArrayList<>(3 + rendered.guardBinds().size());
        binds.add(machine.code(target));
        extra.addValues(binds);
        binds.add(id);
        binds.addAll(rendered.guardBinds());
        int count;
        try (PreparedStatement ps = c.prepareStatement(rendered.sql())) {
            Rows.bind(ps, 1, binds);
            count = ps.executeUpdate();
        } catch (SQLException e) {
            SqlError error = dialect.diagnostics().classify(e);
            if (error.kind() == SqlError.Kind.UNIQUE_VIOLATION) {
                if (Connections.inCallersTransaction(c) && dialect.diagnostics().errorEndedTransaction(c)) {
                    throw new TransactionRolledBackException(
                            "transition " + table + " id " + id + " to " + target + ": the unique violation rolled"
                                    + " back the caller's whole transaction (SQL Server SET XACT_ABORT ON), so no"
                                    + " Conflict over a transaction that is gone; nothing written before it in the"
                                    + " transaction is committed",
                            e);
                }
                return new TransitionResult.Conflict<>(id, error.constraint());
            }
            throw UndefinedColumn.check(dialect, table, e);
        }
        if (count == 1) {
            return new TransitionResult.Applied<>(id, target);
        }
        if (count > 1) {
            throw new DataAccessException("transition " + table + " id " + id + " changed " + count + " rows: "
                    + idColumn + " is not unique (StateTable.verify() reports this)");
        }
        Optional<S> current = read(c, id, true);
        if (current.isEmpty()) {
            return new TransitionResult.NotFound<>(id);
        }
        S now = current.get();
        return now == target
                ? new TransitionResult.AlreadyInTarget<>(id, now)
                : new TransitionResult.Rejected<>(id, now, target);
    }

    /**
     * Reads the state. After a guarded update matched nothing inside a caller's transaction, {@code latest} asks for a
     * locking read: a plain one may see the transaction's snapshot (MySQL and MariaDB at REPEATABLE READ) rather than
     * the state the update met. In autocommit mode every statement reads the latest row anyway, and takes no lock.
     */
    public Optional<S> read(Connection c, Object id, boolean latest) throws SQLException {
        String where = qId + " = " + idParam(c, id);
        String sql = latest && !c.getAutoCommit()
                ? dialect.ownTables().lockingSelect(qTable, qState, where)
                : "SELECT " + qState + " FROM " + qTable + " WHERE " + where;
        try (PreparedStatement ps = c.prepareStatement(sql)) {
            Rows.bind(ps, 1, List.of(id));
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

    /**
     * How the id is bound: {@code ?}, or where the dialect types text binds by their column (SQL Server, whose driver
     * sends text as NVARCHAR and so converts a VARCHAR id column: a scan under update locks instead of a seek) the
     * form the dialect gives for the id column's type and this id. The column's type is read once; a read that fails
     * leaves the plain bind, correct and slower, and is tried again next time.
     */
    private String idParam(Connection c, Object id) {
        if (!(id instanceof String text) || !dialect.sql().typesTextParams()) {
            return "?";
        }
        String type = idType;
        if (type == null) {
            try {
                SchemaCheck.ColumnInfo column = new SchemaCheck(c, dialect, table).column(idColumn);
                type = column == null || column.typeName() == null ? "" : column.typeName();
            } catch (SQLException e) {
                return "?";
            }
            idType = type;
        }
        return dialect.sql().textParam(type, text);
    }

    /**
     * Which of {@code ids} (at most a few hundred) are in one of {@code states}, as the database returns the ids: the
     * failover audit's look-up on a new writer. A read only, in autocommit mode, safe to run again after a lost reply.
     */
    public List<Object> idsIn(Connection c, List<Object> ids, List<S> states) throws SQLException {
        String sql = "SELECT " + qId + " FROM " + qTable + " WHERE " + qId + " IN ("
                + String.join(", ", java.util.Collections.nCopies(ids.size(), "?")) + ") AND " + qState + " IN ("
                + String.join(", ", java.util.Collections.nCopies(states.size(), "?")) + ")";
        List<Object> binds = new ArrayList<>(ids);
        binds.addAll(codes(states));
        List<Object> out = new ArrayList<>();
        try (PreparedStatement ps = c.prepareStatement(sql)) {
            Rows.bind(ps, 1, binds);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    out.add(rs.getObject(1));
                }
            }
        }
        return out;
    }

    /**
     * One batch of a bulk transition: rows in {@code sources} matching {@code guards} move to {@code target} with the
     * extra assignments, at most {@code batchSize} rows, skipping rows other transactions hold locked.
     */
    public BatchUpdate bulk(List<S> sources, List<Condition> guards, S target, Assignments extra, int batchSize) {
        return UndefinedColumn.reported(
                dialect, table, dialect.batchUpdate(bulkSpec(sources, guards, target, extra, batchSize)));
    }

    /** What {@link #bulk} runs, as a spec: for the planner's check of it. */
    public BatchUpdateSpec bulkSpec(
            List<S> sources, List<Condition> guards, S target, Assignments extra, int batchSize) {
        check(extra);
        List<Condition> all = new ArrayList<>();
        all.add(new Condition.StateIn(stateColumn, codes(sources), sources));
        all.addAll(guards);
        StringBuilder set = new StringBuilder(qState).append(" = ?");
        extra.render(dialect, set);
        List<Object> setBinds = new ArrayList<>();
        setBinds.add(machine.code(target));
        extra.addValues(setBinds);
        // a bulk move needs no order; leaving it out lets the database use the state index
        return BatchUpdateSpec.builder(qTable, qId)
                .where(Conditions.and(dialect, all))
                .set(new SqlFragment(set.toString(), setBinds))
                .limit(batchSize)
                .build();
    }

    private List<Object> codes(List<S> states) {
        List<Object> codes = new ArrayList<>(states.size());
        for (S s : states) {
            codes.add(machine.code(s));
        }
        return codes;
    }
}
