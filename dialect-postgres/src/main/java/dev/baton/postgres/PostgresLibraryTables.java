package dev.baton.postgres;

import java.util.List;

/** The SQL of Baton's own tables (idempotency keys, inbox) on PostgreSQL. */
final class PostgresLibraryTables {
    private PostgresLibraryTables() {}

    static List<String> idempotencyKeysDdl(String table, String index) {
        return List.of(
                "CREATE TABLE " + table + " (\n"
                        + "    \"scope\" VARCHAR(255) NOT NULL,\n"
                        + "    \"idempotency_key\" VARCHAR(255) NOT NULL,\n"
                        + "    \"fingerprint\" VARCHAR(255) NOT NULL,\n"
                        + "    \"state\" VARCHAR(16) NOT NULL CHECK (\"state\" IN ('in_progress', 'completed')),\n"
                        + "    \"token\" BIGINT NOT NULL,\n"
                        + "    \"attempts\" INTEGER NOT NULL,\n"
                        + "    \"locked_until\" TIMESTAMPTZ NULL,\n"
                        + "    \"response\" BYTEA NULL,\n"
                        + "    \"created_at\" TIMESTAMPTZ NOT NULL,\n"
                        + "    \"updated_at\" TIMESTAMPTZ NOT NULL,\n"
                        + "    PRIMARY KEY (\"scope\", \"idempotency_key\")\n"
                        + ")",
                "CREATE INDEX " + index + " ON " + table + " (\"updated_at\")");
    }

    static List<String> inboxDdl(String table, String index) {
        return List.of(
                "CREATE TABLE " + table + " (\n"
                        + "    \"source\" VARCHAR(255) NOT NULL,\n"
                        + "    \"message_id\" VARCHAR(255) NOT NULL,\n"
                        + "    \"receipt\" BIGINT NOT NULL,\n"
                        + "    \"received_at\" TIMESTAMPTZ NOT NULL,\n"
                        + "    PRIMARY KEY (\"source\", \"message_id\")\n"
                        + ")",
                "CREATE INDEX " + index + " ON " + table + " (\"received_at\")");
    }

    /** ON CONFLICT DO NOTHING: a duplicate is no error, so a caller's transaction is not aborted (25P02). */
    static String insertIfAbsent(String table, List<String> columns, List<String> values, List<String> key) {
        return "INSERT INTO " + table + " (" + String.join(", ", columns) + ") VALUES (" + String.join(", ", values)
                + ") ON CONFLICT (" + String.join(", ", key) + ") DO NOTHING";
    }

    /**
     * A MATERIALIZED CTE picks and locks the batch, skipping locked rows, then the DELETE joins it: never
     * {@code WHERE key IN (subquery … LIMIT n)}, which PostgreSQL may evaluate more than once (BUG #15715).
     */
    static String deleteBatch(String table, List<String> key, String where, int limit) {
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
