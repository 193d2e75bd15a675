package dev.baton.postgres;

import dev.baton.spi.BatchUpdate;
import dev.baton.spi.BatchUpdateSpec;
import java.util.ArrayList;
import java.util.List;

/**
 * A batch update on PostgreSQL is one statement: a {@code MATERIALIZED} CTE picks and locks the rows ({@code FOR NO
 * KEY UPDATE SKIP LOCKED}, so foreign-key checks on the rows do not block) and the {@code UPDATE … FROM} it re-checks
 * the guard and returns the new values. Not {@code WHERE id IN (subquery … LIMIT n)}, which PostgreSQL may evaluate
 * more than once and so update more than n rows (BUG #15715). The limit is rendered into the text so that a
 * server-side prepared statement never falls back to a generic plan that scans the table.
 */
final class PostgresBatchUpdate {
    private PostgresBatchUpdate() {}

    static BatchUpdate render(BatchUpdateSpec spec) {
        StringBuilder sql = new StringBuilder("WITH baton_claim AS MATERIALIZED (")
                .append(spec.pickSql(spec.idColumn() + " AS baton_claimed_id"));
        sql.append(" LIMIT ")
                .append(spec.limit())
                .append(" FOR NO KEY UPDATE SKIP LOCKED) UPDATE ")
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
            for (String c : spec.returning()) {
                cols.add("baton_target." + c);
            }
            sql.append(String.join(", ", cols));
        }
        List<Object> binds = new ArrayList<>(spec.pickWhere().binds());
        binds.addAll(spec.set().binds());
        binds.addAll(spec.where().binds());
        return BatchUpdate.singleStatement(
                sql.toString(), binds, spec.returning().size());
    }
}
