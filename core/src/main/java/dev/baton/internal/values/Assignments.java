package dev.baton.internal.values;

import dev.baton.ConfigurationException;
import dev.baton.spi.Dialect;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * The extra assignments of a guarded update, {@code col = ?} or {@code col = <database now>}, beside the state the
 * statement writes: the one SET-list of transitions, bulk transitions and queue outcomes. Each column is checked when
 * added (a valid identifier, not set twice, compared case-insensitively) and against the columns the caller manages
 * ({@link #refuse}) before any SQL. Immutable.
 */
public final class Assignments {
    /** No extra assignments. */
    public static final Assignments NONE = new Assignments(List.of(), "");

    /** One assignment; {@code value} is unused when {@code now}. */
    private record Assignment(String column, Object value, boolean now) {}

    private final List<Assignment> list;
    private final String key;

    private Assignments(List<Assignment> list, String key) {
        this.list = list;
        this.key = key;
    }

    /**
     * These assignments and {@code column = value}.
     *
     * @throws dev.baton.InvalidIdentifierException for a bad column name
     * @throws ConfigurationException if the column is already set
     */
    public Assignments set(String column, Object value) {
        return plus(new Assignment(column, value, false));
    }

    /** These assignments and {@code column = <database now>}; checked as {@link #set}. */
    public Assignments setNow(String column) {
        return plus(new Assignment(column, null, true));
    }

    private Assignments plus(Assignment a) {
        Identifiers.check(a.column());
        for (Assignment b : list) {
            if (b.column().equalsIgnoreCase(a.column())) {
                throw new ConfigurationException("column " + a.column() + " is set twice");
            }
        }
        List<Assignment> more = new ArrayList<>(list.size() + 1);
        more.addAll(list);
        more.add(a);
        return new Assignments(Collections.unmodifiableList(more), key + (a.now() ? ";n:" : ";v:") + a.column());
    }

    /**
     * Refuses an assignment to a column the statement manages itself (its id and state columns; a queue's lease and
     * token), compared case-insensitively.
     *
     * @param managed the managed columns, in lower case ({@link #lower})
     * @param owner what manages them, for the message, e.g. {@code "orders.payment_status"}
     * @throws ConfigurationException naming the column
     */
    public Assignments refuse(Set<String> managed, String owner) {
        for (Assignment a : list) {
            if (managed.contains(lower(a.column()))) {
                throw new ConfigurationException("cannot set " + a.column() + ": " + owner + " manages it");
            }
        }
        return this;
    }

    /**
     * Refuses a column name longer than the database allows, before any SQL (rendering would refuse it only when the
     * statement runs, after a connection was borrowed).
     *
     * @throws dev.baton.InvalidIdentifierException naming the column and the limit
     */
    public Assignments fitting(Dialect dialect) {
        for (Assignment a : list) {
            Identifiers.quote(dialect, a.column());
        }
        return this;
    }

    /** {@code column} in lower case, the form {@link #refuse} compares. */
    public static String lower(String column) {
        return column.toLowerCase(Locale.ROOT);
    }

    /** True when there are none. */
    public boolean isEmpty() {
        return list.isEmpty();
    }

    /** What identifies the rendered SQL: the columns and which take the database clock. */
    public String key() {
        return key;
    }

    /** Appends {@code , col = ?} or {@code , col = <now>} for each, in order, to {@code sql}. */
    public StringBuilder render(Dialect dialect, StringBuilder sql) {
        for (Assignment a : list) {
            sql.append(", ")
                    .append(Identifiers.quote(dialect, a.column()))
                    .append(" = ")
                    .append(a.now() ? dialect.sql().currentTimestamp() : "?");
        }
        return sql;
    }

    /** How many assignments bind a value (the others take the database clock). */
    public int valueCount() {
        int n = 0;
        for (Assignment a : list) {
            n += a.now() ? 0 : 1;
        }
        return n;
    }

    /**
     * As {@link #render}, for one statement over {@code n} rows that each bind their own values: {@code , col = CASE
     * id WHEN ? THEN ? … ELSE col END} (the {@code ELSE} arm gives PostgreSQL the column's type when every value is an
     * untyped null; the statement's WHERE never reaches it), or {@code , col = <now>}.
     */
    public StringBuilder renderPerRow(Dialect dialect, String quotedId, int n, StringBuilder sql) {
        for (Assignment a : list) {
            String col = Identifiers.quote(dialect, a.column());
            sql.append(", ").append(col).append(" = ");
            if (a.now()) {
                sql.append(dialect.sql().currentTimestamp());
                continue;
            }
            sql.append("CASE ").append(quotedId);
            for (int i = 0; i < n; i++) {
                sql.append(" WHEN ? THEN ?");
            }
            sql.append(" ELSE ").append(col).append(" END");
        }
        return sql;
    }

    /**
     * Adds the binds of {@link #renderPerRow}: for each value column, each row's id and value. Every element of
     * {@code rows} has the same {@link #key}; {@code ids} are the rows' ids in the same order.
     */
    public static List<Object> addRowValues(List<Assignments> rows, List<Object> ids, List<Object> binds) {
        List<Assignment> columns = rows.get(0).list;
        for (int c = 0; c < columns.size(); c++) {
            if (columns.get(c).now()) {
                continue;
            }
            for (int r = 0; r < rows.size(); r++) {
                binds.add(ids.get(r));
                binds.add(rows.get(r).list.get(c).value());
            }
        }
        return binds;
    }

    /** Adds the bind values, in the order of {@link #render} (database-clock columns bind nothing). */
    public List<Object> addValues(List<Object> binds) {
        for (Assignment a : list) {
            if (!a.now()) {
                binds.add(a.value());
            }
        }
        return binds;
    }

    @Override
    public String toString() {
        return key;
    }
}
