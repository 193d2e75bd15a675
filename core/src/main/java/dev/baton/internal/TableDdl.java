package dev.baton.internal;

import dev.baton.StateMachine;
import dev.baton.internal.values.Identifiers;
import dev.baton.spi.ColumnType;
import dev.baton.spi.Dialect;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The {@code CREATE TABLE} that fits a binding, in the dialect's SQL: the id column as primary key, the state column
 * with the machine's code type, then the other columns the binding uses, each once (names compare case-insensitively;
 * the first type given wins). What {@code verify()} hands over for a missing table. Not thread-safe; build, render,
 * drop.
 */
public final class TableDdl {
    private final Dialect dialect;
    private final String table;
    private final Map<String, String> columns = new LinkedHashMap<>();

    /** A table with {@code idColumn} as its primary key ({@code BIGINT}: the type a caller changes if its ids differ). */
    public TableDdl(Dialect dialect, String table, String idColumn) {
        this.dialect = dialect;
        this.table = table;
        column(idColumn, dialect.sql().columnType(ColumnType.BIGINT) + " NOT NULL PRIMARY KEY");
    }

    /** The state column of {@code machine}: its integer codes, or text that holds its longest code; not null. */
    public TableDdl state(String column, StateMachine<?> machine) {
        return column(column, codeType(dialect, machine) + " NOT NULL");
    }

    /** A column of {@code type} with {@code constraints} (may be empty). */
    public TableDdl column(String column, ColumnType type, String constraints) {
        return column(column, dialect.sql().columnType(type) + (constraints.isEmpty() ? "" : " " + constraints));
    }

    /** A column with its type and constraints as SQL, unless the table has it already. */
    public TableDdl column(String column, String typeAndConstraints) {
        String q = Identifiers.quote(dialect, column) + " " + typeAndConstraints;
        columns.putIfAbsent(column.toLowerCase(Locale.ROOT), q);
        return this;
    }

    /** {@code CREATE TABLE t (id …, state …, …)}. */
    public String render() {
        return "CREATE TABLE " + Identifiers.quoteTable(dialect, table) + " (" + String.join(", ", columns.values())
                + ")";
    }

    /** The statements: the table, then {@code more} (indexes). */
    public List<String> render(List<String> more) {
        List<String> all = new ArrayList<>();
        all.add(render());
        all.addAll(more);
        return List.copyOf(all);
    }

    /** The column type of a machine's codes: integer, or short text (every code has at most 64 characters). */
    public static String codeType(Dialect dialect, StateMachine<?> machine) {
        return dialect.sql()
                .columnType(
                        machine.codeKind() == StateMachine.CodeKind.INTEGER ? ColumnType.INT : ColumnType.SHORT_TEXT);
    }
}
