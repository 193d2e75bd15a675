package dev.baton.sqlserver;

import dev.baton.spi.OwnTableDialect;
import java.util.ArrayList;
import java.util.List;

/**
 * Statements on Baton's own tables that SQL Server writes its own way; the DDL is the {@code V*.sql} files here. Their
 * key columns are {@code NVARCHAR} with a binary collation, so keys compare exactly (default collations ignore case);
 * core refuses keys with trailing spaces, which SQL Server ignores in comparisons. The primary keys are named
 * ({@code <table>_pk}) and {@code NONCLUSTERED}: two {@code NVARCHAR(255)} columns take up to 1,020 bytes, over the 900-byte limit of a
 * clustered key and within the 1,700 bytes of a nonclustered one. The outbox's dedup index is filtered, as SQL
 * Server's UNIQUE would allow one NULL only.
 */
final class SqlServerOwnTables implements OwnTableDialect {

    /**
     * An INSERT … SELECT guarded by NOT EXISTS under UPDLOCK, HOLDLOCK: the key-range lock makes a concurrent insert
     * of the same key wait and then see the row, instead of both passing the check. Values are bound once, through a
     * VALUES row. The probe names the unique index of the key ({@code <table>_pk}, or {@code <table>_dedup} for the
     * outbox's dedup key, as the shipped DDL names them): with a scan chosen by the optimizer instead, HOLDLOCK would
     * range-lock the whole table until the caller's transaction ends.
     */
    @Override
    public String insertIfAbsent(String table, List<String> columns, List<String> values, List<String> key) {
        List<String> match = new ArrayList<>();
        String index = keyIndex(table, key);
        for (String k : key) {
            match.add("baton_old." + k + " = baton_new." + k);
        }
        if (index.endsWith("_dedup]")) {
            // the dedup index is filtered (WHERE [dedup_key] IS NOT NULL): a hint naming a filtered index that might
            // not hold every row the query reads fails to compile (error 8622, learn.microsoft.com, filtered
            // indexes), so the probe states the filter itself
            for (String k : key) {
                match.add("baton_old." + k + " IS NOT NULL");
            }
        }
        String cols = String.join(", ", columns);
        return "INSERT INTO " + table + " (" + cols + ") SELECT " + cols + " FROM (VALUES ("
                + String.join(", ", values) + ")) AS baton_new (" + cols + ") WHERE NOT EXISTS (SELECT 1 FROM "
                + table + " AS baton_old WITH (UPDLOCK, HOLDLOCK, INDEX(" + index + ")) WHERE "
                + String.join(" AND ", match) + ")";
    }

    /** The quoted name of the unique index over {@code key} in the shipped DDL: {@code [<bare table>_<suffix>]}. */
    static String keyIndex(String quotedTable, List<String> key) {
        String bare = quotedTable.substring(quotedTable.lastIndexOf('[') + 1, quotedTable.length() - 1);
        String suffix = key.equals(List.of("[dedup_key]")) ? "dedup" : "pk";
        return "[" + bare + "_" + suffix + "]";
    }

    @Override
    public String lockingSelect(String table, String columns, String where) {
        return "SELECT " + columns + " FROM " + table + " WITH (UPDLOCK, ROWLOCK) WHERE " + where;
    }

    @Override
    public String deleteBatch(String table, List<String> key, String where, int limit) {
        return "DELETE TOP (" + limit + ") FROM " + table + " WITH (ROWLOCK, READPAST, READCOMMITTEDLOCK) WHERE "
                + where;
    }
}
