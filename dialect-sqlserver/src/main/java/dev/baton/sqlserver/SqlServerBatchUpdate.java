package dev.baton.sqlserver;

import dev.baton.spi.BatchUpdate;
import dev.baton.spi.BatchUpdateSpec;
import java.util.ArrayList;
import java.util.List;

/**
 * A batch update on SQL Server is one statement under {@code WITH (UPDLOCK, READPAST, ROWLOCK)} returning the new
 * values through {@code OUTPUT inserted.…}: a CTE with {@code TOP (n) … ORDER BY} when the spec has an order, else
 * {@code UPDATE TOP (n)}. It runs at READ COMMITTED, never SNAPSHOT (READPAST is not allowed there, error 650).
 * {@code OUTPUT} without {@code INTO} fails on tables with triggers.
 */
final class SqlServerBatchUpdate {
    private SqlServerBatchUpdate() {}

    static BatchUpdate render(BatchUpdateSpec spec) {
        String output = "";
        if (!spec.returning().isEmpty()) {
            List<String> cols = new ArrayList<>();
            for (String c : spec.returning()) {
                cols.add("inserted." + c);
            }
            output = " OUTPUT " + String.join(", ", cols);
        }
        String hints = " WITH (UPDLOCK, READPAST, ROWLOCK)";
        String sql;
        List<Object> binds = new ArrayList<>();
        if (spec.orderBy().isEmpty()) {
            sql = "UPDATE TOP (" + spec.limit() + ") " + spec.table() + hints + " SET "
                    + spec.set().sql() + output + " WHERE " + spec.pickWhere().sql();
            binds.addAll(spec.set().binds());
            binds.addAll(spec.pickWhere().binds());
        } else {
            sql = "WITH baton_claim AS (SELECT TOP (" + spec.limit() + ") * FROM " + spec.table() + hints + " WHERE "
                    + spec.pickWhere().sql() + " ORDER BY " + String.join(", ", spec.orderBy())
                    + ") UPDATE baton_claim SET "
                    + spec.set().sql() + output + " WHERE " + spec.where().sql();
            binds.addAll(spec.pickWhere().binds());
            binds.addAll(spec.set().binds());
            binds.addAll(spec.where().binds());
        }
        return BatchUpdate.singleStatement(sql, binds, spec.returning().size());
    }
}
