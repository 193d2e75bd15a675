package dev.baton.mysql;

import dev.baton.spi.OwnTableDialect;
import java.util.List;

/**
 * Statements on Baton's own tables that MySQL writes its own way; the DDL is the {@code V*.sql} files here. Those
 * tables use {@code utf8mb4_bin}, so keys compare exactly (the default collations ignore case); core refuses keys with
 * trailing spaces, which {@code PAD SPACE} collations would ignore. Timestamps are {@code DATETIME(6)} holding UTC,
 * written and compared with {@code UTC_TIMESTAMP(6)}, so lease arithmetic is the same for every connection whatever its
 * time zone, and runs past 2038 ({@code V1..V3} created them as {@code TIMESTAMP(6)}; {@code V4..V6} convert them).
 */
final class MySqlOwnTables implements OwnTableDialect {

    /** Single-table DELETE takes LIMIT; the index on the age column keeps the locks to the rows deleted. */
    @Override
    public String deleteBatch(String table, List<String> key, String where, int limit) {
        return "DELETE FROM " + table + " WHERE " + where + " LIMIT " + limit;
    }
}
