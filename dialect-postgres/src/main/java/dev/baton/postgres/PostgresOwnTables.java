package dev.baton.postgres;

import dev.baton.spi.OwnTableDialect;
import java.util.List;

/** Statements on Baton's own tables that PostgreSQL writes its own way; the DDL is the {@code V*.sql} files here. */
final class PostgresOwnTables implements OwnTableDialect {

    /** ON CONFLICT DO NOTHING: a duplicate is no error, so a caller's transaction is not aborted (25P02). */
    @Override
    public String insertIfAbsent(String table, List<String> columns, List<String> values, List<String> key) {
        return "INSERT INTO " + table + " (" + String.join(", ", columns) + ") VALUES (" + String.join(", ", values)
                + ") ON CONFLICT (" + String.join(", ", key) + ") DO NOTHING";
    }

    /**
     * A MATERIALIZED CTE picks and locks the batch, skipping locked rows, then the DELETE joins it: never
     * {@code WHERE key IN (subquery … LIMIT n)}, which PostgreSQL may evaluate more than once (BUG #15715).
     */
    @Override
    public String deleteBatch(String table, List<String> key, String where, int limit) {
        StringBuilder join = new StringBuilder();
        for (String k : key) {
            join.append(join.length() == 0 ? "" : " AND ")
                    .append("baton_target.")
                    .append(k)
                    .append(" = baton_batch.")
                    .append(k);
        }
        return "WITH baton_batch AS MATERIALIZED (SELECT " + String.join(", ", key) + " FROM " + table + " WHERE "
                + where + " LIMIT " + limit + " FOR UPDATE SKIP LOCKED) DELETE FROM " + table
                + " AS baton_target USING baton_batch WHERE " + join;
    }
}
