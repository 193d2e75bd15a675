package dev.baton.postgres;

import dev.baton.spi.ColumnType;
import dev.baton.spi.ExclusiveLock;
import dev.baton.spi.Rows;
import dev.baton.spi.SqlVocabulary;
import java.util.List;

/** PostgreSQL's words: double-quoted identifiers, {@code clock_timestamp()}, intervals, partial indexes. */
final class PostgresSql implements SqlVocabulary {

    @Override
    public String quote(String identifier) {
        return '"' + identifier + '"';
    }

    @Override
    public String currentTimestamp() {
        // clock_timestamp(), not now(): now() is frozen at transaction start, and a lease stamped late in a long
        // transaction would then be shorter than configured.
        return "clock_timestamp()";
    }

    /** Numeric in PostgreSQL 14+ (exact), double precision before (exact to the microsecond for centuries). */
    @Override
    public String clockMicros() {
        return "CAST(EXTRACT(EPOCH FROM clock_timestamp()) * 1000000 AS BIGINT)";
    }

    @Override
    public String plusMillis(String timestampSql, long millis) {
        return "(" + timestampSql + " + interval '" + millis + " milliseconds')";
    }

    @Override
    public String plusMillisParam(String timestampSql) {
        return "(" + timestampSql + " + (?::bigint) * interval '1 millisecond')";
    }

    @Override
    public String columnType(ColumnType type) {
        return switch (type) {
            case BIGINT -> "BIGINT";
            case INT -> "INTEGER";
            case SHORT_TEXT -> "VARCHAR(64)";
            case TEXT -> "TEXT";
            case TIMESTAMP -> "TIMESTAMPTZ";
        };
    }

    /**
     * A partial index on the rows a claim or an expiry sweep looks at: small (completed rows leave it), in claim
     * order, and the planner's choice even when statistics were taken while most rows were pending.
     */
    @Override
    public String claimIndex(String quotedIndex, String quotedTable, List<String> columns, String activeGuard) {
        return "CREATE INDEX " + quotedIndex + " ON " + quotedTable + " ("
                + String.join(", ", columns.subList(1, columns.size())) + ") WHERE " + activeGuard;
    }

    @Override
    public String alterColumnType(String quotedTable, String quotedColumn, String type, boolean nullable) {
        // a cast from character(n) to varchar drops the padding, so stored codes come out trimmed
        return "ALTER TABLE " + quotedTable + " ALTER COLUMN " + quotedColumn + " TYPE " + type;
    }

    @Override
    public String setNotNull(String quotedTable, String quotedColumn, String type) {
        return "ALTER TABLE " + quotedTable + " ALTER COLUMN " + quotedColumn + " SET NOT NULL";
    }

    /** {@code timestamp} (without time zone) holds the session zone's wall clock; leases need {@code timestamptz}. */
    @Override
    public String zoneSafeTimestampFix(String quotedTable, String quotedColumn, String typeName, boolean nullable) {
        if (!"timestamp".equalsIgnoreCase(typeName)) {
            return null;
        }
        return "ALTER TABLE " + quotedTable + " ALTER COLUMN " + quotedColumn + " TYPE TIMESTAMPTZ USING "
                + quotedColumn + " AT TIME ZONE 'UTC'";
    }

    /** A transaction-level advisory lock: the end of the transaction releases it. */
    @Override
    public ExclusiveLock exclusiveLock(long key) {
        return new ExclusiveLock("SELECT 1 FROM (SELECT pg_advisory_xact_lock(" + key + ")) baton_lock", null);
    }

    /** {@code FOR NO KEY UPDATE}, as the claim locks: an insert that references the row is not blocked. */
    @Override
    public String lockUnlockedIds(String quotedTable, String quotedIdColumn, int count) {
        return "SELECT " + quotedIdColumn + " FROM " + quotedTable + " WHERE " + quotedIdColumn + " IN ("
                + Rows.placeholders(count) + ") FOR NO KEY UPDATE SKIP LOCKED";
    }
}
