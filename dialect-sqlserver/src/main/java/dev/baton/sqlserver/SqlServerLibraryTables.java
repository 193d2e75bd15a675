package dev.baton.sqlserver;

import java.util.ArrayList;
import java.util.List;

/**
 * The SQL of Baton's own tables (idempotency keys, inbox) on SQL Server. Key columns are {@code NVARCHAR} with a
 * binary collation, so keys compare exactly (default collations ignore case); core refuses keys with trailing spaces,
 * which SQL Server ignores in comparisons. The primary key is {@code NONCLUSTERED}: two {@code NVARCHAR(255)} columns
 * take up to 1,020 bytes, over the 900-byte limit of a clustered key and within the 1,700 bytes of a nonclustered one.
 */
final class SqlServerLibraryTables {
    private static final String KEY_TYPE = "NVARCHAR(255) COLLATE Latin1_General_100_BIN2";

    private SqlServerLibraryTables() {}

    static List<String> idempotencyKeysDdl(String table, String index) {
        return List.of(
                "CREATE TABLE " + table + " (\n"
                        + "    [scope] " + KEY_TYPE + " NOT NULL,\n"
                        + "    [idempotency_key] " + KEY_TYPE + " NOT NULL,\n"
                        + "    [fingerprint] " + KEY_TYPE + " NOT NULL,\n"
                        + "    [state] VARCHAR(16) NOT NULL CHECK ([state] IN ('in_progress', 'completed')),\n"
                        + "    [token] BIGINT NOT NULL,\n"
                        + "    [attempts] INT NOT NULL,\n"
                        + "    [locked_until] DATETIME2(6) NULL,\n"
                        + "    [response] VARBINARY(MAX) NULL,\n"
                        + "    [created_at] DATETIME2(6) NOT NULL,\n"
                        + "    [updated_at] DATETIME2(6) NOT NULL,\n"
                        + "    PRIMARY KEY NONCLUSTERED ([scope], [idempotency_key])\n"
                        + ")",
                "CREATE INDEX " + index + " ON " + table + " ([updated_at])");
    }

    static List<String> inboxDdl(String table, String index) {
        return List.of(
                "CREATE TABLE " + table + " (\n"
                        + "    [source] " + KEY_TYPE + " NOT NULL,\n"
                        + "    [message_id] " + KEY_TYPE + " NOT NULL,\n"
                        + "    [receipt] BIGINT NOT NULL,\n"
                        + "    [received_at] DATETIME2(6) NOT NULL,\n"
                        + "    PRIMARY KEY NONCLUSTERED ([source], [message_id])\n"
                        + ")",
                "CREATE INDEX " + index + " ON " + table + " ([received_at])");
    }

    /**
     * An INSERT … SELECT guarded by NOT EXISTS under UPDLOCK, HOLDLOCK: the key-range lock makes a concurrent insert
     * of the same key wait and then see the row, instead of both passing the check. Values are bound once, through a
     * VALUES row.
     */
    static String insertIfAbsent(String table, List<String> columns, List<String> values, List<String> key) {
        List<String> match = new ArrayList<>();
        for (String k : key) {
            match.add("baton_old." + k + " = baton_new." + k);
        }
        String cols = String.join(", ", columns);
        return "INSERT INTO " + table + " (" + cols + ") SELECT " + cols + " FROM (VALUES ("
                + String.join(", ", values) + ")) AS baton_new (" + cols + ") WHERE NOT EXISTS (SELECT 1 FROM "
                + table + " AS baton_old WITH (UPDLOCK, HOLDLOCK) WHERE " + String.join(" AND ", match) + ")";
    }

    static String lockingSelect(String table, String columns, String where) {
        return "SELECT " + columns + " FROM " + table + " WITH (UPDLOCK, ROWLOCK) WHERE " + where;
    }

    static String deleteBatch(String table, String where, int limit) {
        return "DELETE TOP (" + limit + ") FROM " + table + " WITH (ROWLOCK, READPAST) WHERE " + where;
    }
}
