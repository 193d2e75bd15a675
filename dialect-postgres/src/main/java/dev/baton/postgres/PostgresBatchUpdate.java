package dev.baton.postgres;

import dev.baton.spi.BatchUpdate;
import dev.baton.spi.BatchUpdateSpec;
import dev.baton.spi.Rows;
import dev.baton.spi.SqlFragment;
import dev.baton.spi.SqlVocabulary;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A batch update on PostgreSQL is one statement: a {@code MATERIALIZED} CTE picks and locks the rows ({@code FOR NO
 * KEY UPDATE SKIP LOCKED}, so foreign-key checks on the rows do not block) and the {@code UPDATE … FROM} it re-checks
 * the guard and returns the new values; an ordered batch (a claim) is a second CTE, its rows sorted by the order
 * columns the pick carried along, since {@code RETURNING} promises no order. Not {@code WHERE id IN (subquery … LIMIT n)}, which PostgreSQL may evaluate
 * more than once and so update more than n rows (BUG #15715). The limit is rendered into the text. After a short
 * batch (the table may be nearly empty) the next one is sent unnamed ({@link CustomPlans}), planned for the table as
 * it is; only after a full batch (a backlog: the table is not small) does pgjdbc's server-side prepared statement run,
 * so a generic plan PostgreSQL makes or re-makes for it is made for a table with a backlog, never for an empty one.
 */
final class PostgresBatchUpdate {
    private static final SqlVocabulary SQL = new PostgresSql();

    private PostgresBatchUpdate() {}

    /**
     * The round-robin candidates read group by group: a recursive CTE walks the distinct groups of the
     * eligible rows, each step the next group after the last (one probe of the index on (guards, group, order)
     * rather than a scan: a loose index scan), then a LATERAL subquery reads the first {@code perGroup} rows of each
     * group in order, and NULL, a group of its own, is read apart (ordered by the group too, so the index gives the
     * order: PostgreSQL sorts {@code IS NULL} rows otherwise). The window that ranks them sees at most {@code
     * perGroup} rows per group, however long a group's backlog; it ranks by turn ({@link BatchUpdateSpec.FairGroups#turn}:
     * the place in the group, or with weights the place divided by the group's weight). The best {@code perGroup} of them in round-robin order
     * are the candidates: the same room for claims running at once as the window's, and a row count the planner can
     * see, so it joins them to the table by the primary key (without the limit it merge-joined a full scan of the
     * primary key at 1,000,000 rows).
     */
    static SqlFragment fairCandidates(BatchUpdateSpec spec, BatchUpdateSpec.FairGroups f) {
        String t = spec.table();
        String g = f.groupColumn();
        String e = f.eligible().sql();
        List<String> columns = new ArrayList<>();
        columns.add(spec.idColumn() + " AS baton_id");
        List<String> rankOrder = new ArrayList<>();
        for (int i = 0; i < f.order().size(); i++) {
            columns.add(f.order().get(i) + " AS baton_o" + (i + 1));
            rankOrder.add("baton_per_group.baton_o" + (i + 1));
        }
        SqlFragment turn = f.turn(
                "ROW_NUMBER() OVER (PARTITION BY baton_per_group.baton_group ORDER BY " + String.join(", ", rankOrder)
                        + ")",
                "baton_per_group.baton_group",
                SQL);
        String firstRows = "SELECT " + String.join(", ", columns) + " FROM " + t + " WHERE " + e
                + " AND \u0000 ORDER BY " + g + ", " + String.join(", ", f.order()) + " LIMIT " + f.perGroup();
        String sql = "WITH RECURSIVE baton_groups(baton_group) AS ((SELECT " + g + " FROM " + t + " WHERE " + e
                + " AND " + g + " IS NOT NULL ORDER BY " + g + " LIMIT 1) UNION ALL SELECT (SELECT " + g + " FROM " + t
                + " WHERE " + e + " AND " + g + " > baton_groups.baton_group ORDER BY " + g + " LIMIT 1) FROM"
                + " baton_groups WHERE baton_groups.baton_group IS NOT NULL)"
                + " SELECT baton_per_group.baton_id, " + turn.sql() + " AS baton_rank FROM (SELECT"
                + " baton_groups.baton_group, baton_rows.* FROM baton_groups CROSS JOIN LATERAL ("
                + firstRows.replace("\u0000", g + " = baton_groups.baton_group") + ") baton_rows"
                + " UNION ALL SELECT NULL, baton_nulls.* FROM (" + firstRows.replace("\u0000", g + " IS NULL")
                + ") baton_nulls) baton_per_group ORDER BY baton_rank, " + String.join(", ", rankOrder) + " LIMIT "
                + f.perGroup();
        List<Object> binds = new ArrayList<>();
        binds.addAll(f.eligible().binds()); // the first group
        binds.addAll(f.eligible().binds()); // the next group
        binds.addAll(turn.binds()); // the weights, if any
        binds.addAll(f.eligible().binds()); // each group's first rows
        binds.addAll(f.eligible().binds()); // the NULL group's
        return new SqlFragment(sql, binds);
    }

    static BatchUpdate render(BatchUpdateSpec spec) {
        // UPDATE … RETURNING returns rows in no promised order (seen: a claim of [1, 2, 6] returned [6, 1, 2]), so an
        // ordered batch carries the order columns out of the pick and sorts the updated rows by them
        boolean ranked = spec.candidates().isPresent();
        List<String> orderBy = ranked ? spec.rankedOrderBy() : spec.orderBy();
        boolean ordered = !orderBy.isEmpty() && !spec.returning().isEmpty();
        StringBuilder picked = new StringBuilder(
                (ranked ? spec.tableReference() + "." : "") + spec.idColumn() + " AS baton_claimed_id");
        if (ordered) {
            for (int i = 0; i < orderBy.size(); i++) {
                picked.append(", ")
                        .append(withoutDirection(orderBy.get(i)))
                        .append(" AS baton_order_")
                        .append(i + 1);
            }
        }
        SqlFragment fair = spec.fairGroups().map(f -> fairCandidates(spec, f)).orElse(null);
        String pick = fair != null
                ? spec.rankedPickSql(picked.toString(), fair.sql())
                : ranked ? spec.rankedPickSql(picked.toString()) : spec.pickSql(picked.toString());
        StringBuilder sql = new StringBuilder("WITH baton_claim AS MATERIALIZED (").append(pick);
        // a ranked pick joins its candidates, which are not locked (nor lockable: they are ranked by a window)
        sql.append(" LIMIT ")
                .append(spec.limit())
                .append(" FOR NO KEY UPDATE ")
                .append(ranked ? "OF " + spec.tableReference() + " " : "")
                .append("SKIP LOCKED)");
        sql.append(ordered ? ", baton_updated AS (UPDATE " : " UPDATE ")
                .append(spec.table())
                .append(" AS baton_target SET ")
                .append(spec.set().sql())
                .append(" FROM baton_claim WHERE baton_target.")
                .append(spec.idColumn())
                .append(" = baton_claim.baton_claimed_id AND ")
                .append(spec.where().sql());
        if (!spec.returning().isEmpty()) {
            sql.append(" RETURNING ");
            List<String> cols = new ArrayList<>();
            for (int i = 0; i < spec.returning().size(); i++) {
                cols.add("baton_target." + spec.returning().get(i) + (ordered ? " AS baton_returned_" + (i + 1) : ""));
            }
            if (ordered) {
                for (int i = 0; i < orderBy.size(); i++) {
                    cols.add("baton_claim.baton_order_" + (i + 1));
                }
            }
            sql.append(String.join(", ", cols));
        }
        if (ordered) {
            List<String> returned = new ArrayList<>();
            for (int i = 0; i < spec.returning().size(); i++) {
                returned.add("baton_returned_" + (i + 1));
            }
            List<String> order = new ArrayList<>();
            for (int i = 0; i < orderBy.size(); i++) {
                order.add("baton_order_" + (i + 1) + (descending(orderBy.get(i)) ? " DESC" : ""));
            }
            sql.append(") SELECT ")
                    .append(String.join(", ", returned))
                    .append(" FROM baton_updated ORDER BY ")
                    .append(String.join(", ", order));
        }
        List<Object> binds = new ArrayList<>();
        if (fair != null) {
            binds.addAll(fair.binds());
            binds.addAll(spec.pickWhere().binds());
        } else {
            binds.addAll(ranked ? spec.rankedPickBinds() : spec.pickWhere().binds());
        }
        binds.addAll(spec.set().binds());
        binds.addAll(spec.where().binds());
        String text = sql.toString();
        List<Object> values = Collections.unmodifiableList(binds);
        int width = spec.returning().size();
        int limit = spec.limit();
        AtomicBoolean backlog = new AtomicBoolean();
        return BatchUpdate.of(List.of(text), (connection, args) -> {
            try (PreparedStatement ps = connection.prepareStatement(text)) {
                if (!backlog.get()) {
                    CustomPlans.everyTime(ps); // no generic plan is made while the table may be (nearly) empty
                }
                Rows.bind(ps, 1, SqlFragment.resolve(values, args));
                List<Object[]> rows;
                if (width == 0) {
                    rows = Rows.empty(ps.executeUpdate());
                } else {
                    try (ResultSet rs = ps.executeQuery()) {
                        rows = Rows.read(rs, width);
                    }
                }
                backlog.set(rows.size() >= limit);
                return rows;
            }
        });
    }

    /** True for an order term that ends in {@code DESC}. */
    static boolean descending(String term) {
        return term.toUpperCase(Locale.ROOT).endsWith(" DESC");
    }

    /** The order term without its direction: what the pick carries out as a column. */
    static String withoutDirection(String term) {
        return descending(term) ? term.substring(0, term.length() - " DESC".length()) : term;
    }
}
