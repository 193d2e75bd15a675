package dev.baton.spi;

import java.util.List;

/**
 * What a batch claim must do, independent of the database: pick up to {@code limit} rows of {@code table} that
 * match {@code where}, in {@code orderBy} order, skipping rows other transactions hold locked; apply {@code set} to
 * them, re-checking {@code where} in the same statement; return the {@code returning} columns as they are after the
 * update. Identifiers are validated and quoted by the dialect already.
 *
 * @param table quoted (possibly schema-qualified) table name
 * @param idColumn quoted primary key column
 * @param where the eligibility guard, repeated in the update
 * @param orderBy quoted columns, each optionally followed by {@code DESC}; empty for any order
 * @param set the assignments, e.g. {@code "state" = ?, "attempts" = "attempts" + 1}
 * @param returning quoted columns to return; empty to return only the row count
 * @param limit the batch size, rendered into the SQL text (validated and bounded, see DESIGN.md §4)
 * @param pickGuard an extra guard applied only when picking rows, not repeated in the update (e.g. per-key ordering,
 *     a {@code NOT EXISTS} over the same table, which MySQL does not allow in an UPDATE), or {@code null}; it may
 *     refer to the picked row as {@code <bare quoted table>.<column>}
 * @param returningBeforeUpdate the values of {@code returning} written as expressions over the row before the update
 *     (e.g. {@code "attempts" + 1} where the update increments {@code "attempts"}), so that a dialect without
 *     {@code UPDATE … RETURNING} can read them with its locking read instead of reading the rows again; empty when the
 *     update changes a returned column in a way no such expression gives
 */
public record ClaimSpec(
        String table,
        String idColumn,
        SqlFragment where,
        List<String> orderBy,
        SqlFragment set,
        List<String> returning,
        int limit,
        SqlFragment pickGuard,
        List<String> returningBeforeUpdate) {

    /** A spec whose returned values are not derivable before the update. */
    public ClaimSpec(
            String table,
            String idColumn,
            SqlFragment where,
            List<String> orderBy,
            SqlFragment set,
            List<String> returning,
            int limit,
            SqlFragment pickGuard) {
        this(table, idColumn, where, orderBy, set, returning, limit, pickGuard, List.of());
    }

    /** A spec without a pick-only guard. */
    public ClaimSpec(
            String table,
            String idColumn,
            SqlFragment where,
            List<String> orderBy,
            SqlFragment set,
            List<String> returning,
            int limit) {
        this(table, idColumn, where, orderBy, set, returning, limit, null);
    }

    /** The guard for picking rows: {@code where}, and the pick-only guard if there is one. */
    public SqlFragment pickWhere() {
        return pickGuard == null ? where : SqlFragment.join(" AND ", List.of(where, pickGuard));
    }

    /**
     * {@code SELECT <columns> FROM <table> WHERE <pickWhere> [ORDER BY <orderBy>]}: the picking query, without its
     * limit and locking clause, which differ per database. Its binds are {@link #pickWhere()}'s.
     */
    public String pickSql(String columns) {
        StringBuilder sql = new StringBuilder("SELECT ")
                .append(columns)
                .append(" FROM ")
                .append(table)
                .append(" WHERE ")
                .append(pickWhere().sql());
        if (!orderBy.isEmpty()) {
            sql.append(" ORDER BY ").append(String.join(", ", orderBy));
        }
        return sql.toString();
    }

    /** Copies the lists. */
    public ClaimSpec {
        orderBy = List.copyOf(orderBy);
        returning = List.copyOf(returning);
        returningBeforeUpdate = List.copyOf(returningBeforeUpdate);
        if (!returningBeforeUpdate.isEmpty() && returningBeforeUpdate.size() != returning.size()) {
            throw new IllegalArgumentException("returningBeforeUpdate must be empty or match returning, was "
                    + returningBeforeUpdate + " for " + returning);
        }
        if (limit < 1) {
            throw new IllegalArgumentException("limit must be positive, was " + limit);
        }
    }
}
