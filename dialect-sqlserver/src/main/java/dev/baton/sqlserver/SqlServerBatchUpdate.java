package dev.baton.sqlserver;

import dev.baton.ConfigurationException;
import dev.baton.spi.BatchUpdate;
import dev.baton.spi.BatchUpdateSpec;
import dev.baton.spi.Rows;
import dev.baton.spi.SqlFragment;
import dev.baton.spi.SqlVocabulary;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A batch update on SQL Server is one statement under {@code WITH (UPDLOCK, READPAST, ROWLOCK, READCOMMITTEDLOCK)}
 * returning the new
 * values through {@code OUTPUT inserted.…}: a CTE with {@code TOP (n) … ORDER BY} when the spec has an order, else
 * {@code UPDATE TOP (n)}. {@code OUTPUT} rows come in no defined order, so an ordered batch also outputs the order
 * columns as they were before the update ({@code deleted.…}) and the rows are sorted by them here. READPAST is
 * allowed only at READ COMMITTED and REPEATABLE READ (error 650): see {@link ReadpastIsolation}; under
 * READ_COMMITTED_SNAPSHOT (the Azure default, and what per-key ordered claims require) READ COMMITTED reads row
 * versions, where READPAST is refused unless READCOMMITTEDLOCK is named too (learn.microsoft.com, table hints); with
 * UPDLOCK present the hint changes nothing where the option is off. {@code OUTPUT}
 * without {@code INTO} fails on tables with enabled triggers (error 334): the first run of a statement that returns
 * rows asks whether its table has any, and if so runs the {@link OutputInto} form from then on. A trigger enabled
 * later fails one run with error 334, and the run after asks again.
 */
final class SqlServerBatchUpdate {
    private static final SqlVocabulary SQL = new SqlServerSql();

    /** Values one statement may bind: 2,100 parameters a request (error 8003), less sp_prepexec's own three. */
    static final int MAX_PARAMETERS = 2097;

    private SqlServerBatchUpdate() {}

    static BatchUpdate render(BatchUpdateSpec spec) {
        List<String> orderColumns = new ArrayList<>();
        List<Boolean> descending = new ArrayList<>();
        boolean ordered = !spec.orderBy().isEmpty() && !spec.returning().isEmpty();
        BatchUpdateSpec.FairGroups fair = spec.fairGroups().orElse(null);
        if (ordered) {
            for (String o : spec.orderBy()) {
                if (fair != null && o.equals(fair.groupColumn())) {
                    continue; // the returned rows keep the queue's order, as before the bounded form
                }
                boolean desc = o.toUpperCase(Locale.ROOT).endsWith(" DESC");
                orderColumns.add(desc ? o.substring(0, o.length() - " DESC".length()) : o);
                descending.add(desc);
            }
        }
        String output = "";
        if (!spec.returning().isEmpty()) {
            List<String> cols = new ArrayList<>();
            for (String c : spec.returning()) {
                cols.add("inserted." + c);
            }
            for (String c : orderColumns) {
                cols.add("deleted." + c);
            }
            output = " OUTPUT " + String.join(", ", cols);
        }
        String hints = " WITH (UPDLOCK, READPAST, ROWLOCK, READCOMMITTEDLOCK)";
        String before;
        String after;
        List<Object> binds = new ArrayList<>();
        if (spec.orderBy().isEmpty()) {
            before = "UPDATE TOP (" + spec.limit() + ") " + spec.table() + hints + " SET "
                    + spec.set().sql() + output;
            after = " WHERE " + spec.pickWhere().sql();
            binds.addAll(spec.set().binds());
            binds.addAll(spec.pickWhere().binds());
        } else if (fair != null) {
            // the candidates read group by group: a recursive CTE walks the distinct groups, each step the
            // next group after the last (the recursive member may hold no subquery or TOP, so the step is the first
            // row by ROW_NUMBER of a join, which an index on (state, guards, group, order) serves), then CROSS APPLY
            // reads the first rows of each group, NULL apart; OPTION (MAXRECURSION 0) lifts the limit of 100 groups
            String g = fair.groupColumn();
            String e = fair.eligible().sql();
            String t = spec.table();
            List<String> columns = new ArrayList<>();
            columns.add(spec.idColumn() + " AS baton_id");
            List<String> rankOrder = new ArrayList<>();
            for (int i = 0; i < fair.order().size(); i++) {
                columns.add(fair.order().get(i) + " AS baton_o" + (i + 1));
                rankOrder.add("baton_o" + (i + 1));
            }
            SqlFragment turn = fair.turn(
                    "ROW_NUMBER() OVER (PARTITION BY baton_group ORDER BY " + String.join(", ", rankOrder) + ")",
                    "baton_group",
                    SQL);
            String firstRows = "SELECT TOP (" + fair.perGroup() + ") " + String.join(", ", columns) + " FROM " + t
                    + " WHERE " + e + " AND \u0000 ORDER BY " + g + ", " + String.join(", ", fair.order());
            // the anchor's TOP (1) … ORDER BY sits in a derived table: T-SQL allows ORDER BY only after the last query
            // of a UNION (error 156 near UNION otherwise)
            before = "WITH baton_groups(baton_group) AS (SELECT baton_first_group.baton_group FROM (SELECT TOP (1) " + g
                    + " AS baton_group FROM " + t + " WHERE " + e + " AND " + g + " IS NOT NULL ORDER BY " + g
                    + ") baton_first_group UNION ALL SELECT baton_next.baton_group FROM (SELECT " + t
                    + "." + g + " AS baton_group, ROW_NUMBER() OVER (ORDER BY " + t + "." + g + ") AS baton_n FROM "
                    + t + " JOIN baton_groups ON " + t + "." + g + " > baton_groups.baton_group WHERE " + e
                    + ") baton_next WHERE baton_next.baton_n = 1), baton_claim AS (SELECT TOP (" + spec.limit() + ") "
                    + spec.tableReference() + ".* FROM " + t + hints + " JOIN (SELECT TOP (" + fair.perGroup()
                    + ") baton_id, baton_rank FROM (SELECT baton_id, " + turn.sql() + " AS baton_rank, "
                    + String.join(", ", rankOrder)
                    + " FROM (SELECT baton_groups.baton_group, baton_first.* FROM baton_groups CROSS APPLY ("
                    + firstRows.replace("\u0000", g + " = baton_groups.baton_group") + ") baton_first UNION ALL"
                    + " SELECT NULL, baton_nulls.* FROM (" + firstRows.replace("\u0000", g + " IS NULL")
                    + ") baton_nulls) baton_rows) baton_per_group ORDER BY baton_rank, " + String.join(", ", rankOrder)
                    + ") baton_candidate ON baton_candidate.baton_id = " + spec.tableReference() + "."
                    + spec.idColumn() + " WHERE " + spec.pickWhere().sql() + " ORDER BY "
                    + String.join(", ", spec.rankedOrderBy()) + ") UPDATE baton_claim SET "
                    + spec.set().sql()
                    + output;
            after = " WHERE " + spec.where().sql() + " OPTION (MAXRECURSION 0)";
            binds.addAll(fair.eligible().binds()); // the first group
            binds.addAll(fair.eligible().binds()); // the next group
            binds.addAll(turn.binds()); // the weights, if any
            binds.addAll(fair.eligible().binds()); // each group's first rows
            binds.addAll(fair.eligible().binds()); // the NULL group's
            binds.addAll(spec.pickWhere().binds());
            binds.addAll(spec.set().binds());
            binds.addAll(spec.where().binds());
        } else if (spec.candidates().isPresent()) {
            // the candidates are ranked by a window over the table, read at READ COMMITTED; only the picked rows are
            // locked (the hints apply to the table, not to the derived ranking)
            before = "WITH baton_claim AS (SELECT TOP (" + spec.limit() + ") " + spec.tableReference() + ".* FROM "
                    + spec.table() + hints + " JOIN (" + spec.candidates().get().sql()
                    + ") baton_candidate ON baton_candidate.baton_id = " + spec.tableReference() + "."
                    + spec.idColumn() + " WHERE " + spec.pickWhere().sql() + " ORDER BY "
                    + String.join(", ", spec.rankedOrderBy()) + ") UPDATE baton_claim SET "
                    + spec.set().sql()
                    + output;
            after = " WHERE " + spec.where().sql();
            binds.addAll(spec.rankedPickBinds());
            binds.addAll(spec.set().binds());
            binds.addAll(spec.where().binds());
        } else {
            before = "WITH baton_claim AS (SELECT TOP (" + spec.limit() + ") * FROM " + spec.table() + hints + " WHERE "
                    + spec.pickWhere().sql() + " ORDER BY " + String.join(", ", spec.orderBy())
                    + ") UPDATE baton_claim SET " + spec.set().sql() + output;
            after = " WHERE " + spec.where().sql();
            binds.addAll(spec.pickWhere().binds());
            binds.addAll(spec.set().binds());
            binds.addAll(spec.where().binds());
        }
        String sql = before + after;
        if (binds.size() > MAX_PARAMETERS) {
            throw new ConfigurationException("a batch update of " + spec.table() + " would bind " + binds.size()
                    + " values, over the " + MAX_PARAMETERS + " a statement can take on SQL Server (a request carries"
                    + " at most 2,100 parameters, error 8003, and mssql-jdbc's sp_prepexec adds three of its own):"
                    + " shorten the Condition.in lists of its guard, which a claim binds up to six times");
        }
        List<Object> values = java.util.Collections.unmodifiableList(new ArrayList<>(binds)); // nulls allowed
        int width = spec.returning().size();
        Comparator<Object[]> order = ordered ? queueOrder(width, descending) : null;
        if (width == 0) {
            return BatchUpdate.of(
                    List.of(sql),
                    (connection, args) -> ReadpastIsolation.run(connection, c -> {
                        try (PreparedStatement ps = c.prepareStatement(sql)) {
                            Rows.bind(ps, 1, SqlFragment.resolve(values, args));
                            return Rows.empty(ps.executeUpdate());
                        }
                    }));
        }
        List<String> outputColumns = new ArrayList<>(spec.returning());
        outputColumns.addAll(orderColumns);
        // the text that runs: null until the first run has asked whether the table has triggers
        AtomicReference<String> form = new AtomicReference<>();
        return BatchUpdate.of(
                List.of(sql),
                (connection, args) -> ReadpastIsolation.run(connection, c -> {
                    String text = form.get();
                    if (text == null) {
                        text = OutputInto.hasTriggers(c, spec.table())
                                ? OutputInto.batch(
                                        before,
                                        after,
                                        outputColumns,
                                        OutputInto.columnTypes(c, spec.table()),
                                        spec.table())
                                : sql;
                        form.set(text);
                    }
                    List<Object[]> rows;
                    try (PreparedStatement ps = c.prepareStatement(text)) {
                        Rows.bind(ps, 1, SqlFragment.resolve(values, args));
                        if (text.equals(sql)) {
                            try (ResultSet rs = ps.executeQuery()) {
                                rows = Rows.read(rs, outputColumns.size());
                            }
                        } else {
                            rows = OutputInto.rows(ps, outputColumns.size());
                        }
                    } catch (SQLException e) {
                        if (e.getErrorCode() == OutputInto.TRIGGERS_NEED_INTO) {
                            form.set(null); // a trigger enabled since the first run: the next run asks again
                        }
                        throw e;
                    }
                    return order == null ? rows : sorted(rows, order, width);
                }));
    }

    /** The rows sorted by their trailing order columns, which are then cut off. */
    static List<Object[]> sorted(List<Object[]> rows, Comparator<Object[]> order, int width) {
        List<Object[]> copy = new ArrayList<>(rows);
        copy.sort(order);
        List<Object[]> out = new ArrayList<>(copy.size());
        for (Object[] row : copy) {
            out.add(Arrays.copyOf(row, width));
        }
        return out;
    }

    /**
     * Compares rows by the order columns that follow the first {@code width} columns, nulls first as SQL Server sorts
     * them ascending. Text compares by UTF-16 code units, which can differ from the column's collation; numbers,
     * dates and times compare as SQL Server compares them.
     */
    static Comparator<Object[]> queueOrder(int width, List<Boolean> descending) {
        Comparator<Object[]> order = null;
        for (int i = 0; i < descending.size(); i++) {
            int index = width + i;
            Comparator<Object[]> one = Comparator.comparing(
                    (Object[] row) -> comparable(row[index]), Comparator.nullsFirst(Comparator.naturalOrder()));
            if (descending.get(i)) {
                one = one.reversed();
            }
            order = order == null ? one : order.thenComparing(one);
        }
        return order;
    }

    @SuppressWarnings({"unchecked", "rawtypes"})
    private static Comparable<Object> comparable(Object value) {
        if (value == null) {
            return null;
        }
        if (value instanceof Number n && !(value instanceof java.math.BigDecimal)) {
            return (Comparable) new java.math.BigDecimal(n.toString());
        }
        if (value instanceof Comparable c) {
            return c;
        }
        throw new IllegalStateException("order column value " + value.getClass().getName() + " is not comparable");
    }
}
