package dev.baton.internal;

import dev.baton.Condition;
import dev.baton.internal.values.Identifiers;
import dev.baton.spi.ColumnType;
import dev.baton.spi.Dialect;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The columns of a host table that a binding uses besides the ones it manages: those its conditions, order and
 * selected values name (known when it is built) and those its writes set (told to {@code verify(columns…)}), each with
 * the type its use implies where one does ({@code olderThan}, {@code due}: a timestamp; a state guard: its codes; an
 * equality: its value's type). {@code verify()} checks that each exists and suggests an {@code ALTER TABLE}; a missing
 * table gets them in its {@code CREATE TABLE}. Not thread-safe; build, use, drop.
 */
public final class UsedColumns {
    /** A used column: its name as given, the type its use implies (or null), and the constraints it needs (or ""). */
    private record Used(String name, ColumnType type, String use, String constraints) {}

    private final Map<String, Used> columns = new LinkedHashMap<>();

    /** An empty set. */
    public UsedColumns() {}

    /** Adds a column with a use (for messages) and the type that use implies (null when none). */
    public UsedColumns add(String column, ColumnType type, String use) {
        return add(column, type, use, "");
    }

    /**
     * Adds a column with a use (for messages), the type that use implies and the constraints it needs in the DDL
     * handed out (e.g. {@code NOT NULL DEFAULT 0}).
     */
    public UsedColumns add(String column, ColumnType type, String use, String constraints) {
        String key = column.toLowerCase(Locale.ROOT);
        Used old = columns.get(key);
        if (old == null || (old.type() == null && type != null)) {
            columns.put(
                    key, new Used(old == null ? column : old.name(), type, old == null ? use : old.use(), constraints));
        }
        return this;
    }

    /** Adds the columns named by {@code conditions}, nested ones included. */
    public UsedColumns addConditions(List<Condition> conditions, String use) {
        for (Condition c : conditions) {
            if (c instanceof Condition.IsNull n) {
                add(n.column(), null, use);
            } else if (c instanceof Condition.IsNotNull n) {
                add(n.column(), null, use);
            } else if (c instanceof Condition.Equals e) {
                add(e.column(), typeOf(e.value()), use);
            } else if (c instanceof Condition.In in) {
                add(in.column(), typeOf(in.values().get(0)), use);
            } else if (c instanceof Condition.StateIn s) {
                add(s.column(), s.codes().get(0) instanceof Long ? ColumnType.INT : ColumnType.SHORT_TEXT, use);
            } else if (c instanceof Condition.OlderThan o) {
                add(o.column(), ColumnType.TIMESTAMP, use);
            } else if (c instanceof Condition.Due d) {
                add(d.column(), ColumnType.TIMESTAMP, use);
            } else if (c instanceof Condition.AnyOf any) {
                for (List<Condition> alt : any.alternatives()) {
                    addConditions(alt, use);
                }
            }
        }
        return this;
    }

    /** The columns' names as given, in the order they were added. */
    public java.util.List<String> names() {
        return columns.values().stream().map(Used::name).toList();
    }

    /** Leaves out the columns the binding manages itself (checked with their own types). */
    public UsedColumns without(List<String> managed) {
        for (String m : managed) {
            columns.remove(m.toLowerCase(Locale.ROOT));
        }
        return this;
    }

    /** Adds a problem and an {@code ALTER TABLE … ADD} for each column the table lacks; nothing if it is missing. */
    public void check(SchemaCheck check, Dialect d, String table) {
        if (!check.tableFound()) {
            return;
        }
        for (Used u : columns.values()) {
            if (check.column(u.name()) == null) {
                String type = d.sql().columnType(typeOrGuess(u));
                check.problem(
                        "column " + u.name() + " (" + u.use() + ") does not exist"
                                + (u.type() == null
                                        ? "; its type is not known to Baton, the DDL suggests " + type
                                        : ""),
                        d.sql()
                                .addColumn(
                                        Identifiers.quoteTable(d, table),
                                        Identifiers.quote(d, u.name()),
                                        u.constraints().isEmpty() ? type : type + " " + u.constraints()));
            }
        }
    }

    /** Adds every column to a {@code CREATE TABLE}: nullable, unless its use needs constraints. */
    public void addTo(TableDdl ddl) {
        for (Used u : columns.values()) {
            ddl.column(u.name(), typeOrGuess(u), u.constraints());
        }
    }

    /** The implied type, or a guess from the name: {@code …_at} is a timestamp (paid_at), anything else short text. */
    private static ColumnType typeOrGuess(Used u) {
        if (u.type() != null) {
            return u.type();
        }
        return u.name().toLowerCase(Locale.ROOT).endsWith("_at") ? ColumnType.TIMESTAMP : ColumnType.SHORT_TEXT;
    }

    private static ColumnType typeOf(Object value) {
        if (value instanceof Integer || value instanceof Short || value instanceof Byte) {
            return ColumnType.INT;
        }
        if (value instanceof Long) {
            return ColumnType.BIGINT;
        }
        if (value instanceof String s) {
            return s.length() <= 64 ? ColumnType.SHORT_TEXT : ColumnType.TEXT;
        }
        if (value instanceof java.time.temporal.Temporal || value instanceof java.util.Date) {
            return ColumnType.TIMESTAMP;
        }
        return null;
    }
}
