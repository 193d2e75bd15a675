package dev.baton.mysql;

import dev.baton.spi.ColumnType;
import dev.baton.spi.ExclusiveLock;
import dev.baton.spi.SqlFragment;
import dev.baton.spi.SqlVocabulary;
import java.util.List;

/**
 * MySQL's and MariaDB's words: backquoted identifiers, {@code UTC_TIMESTAMP(6)}, {@code TIMESTAMPADD}.
 *
 * <p>The clock is {@code UTC_TIMESTAMP(6)}, never {@code NOW()} or {@code CURRENT_TIMESTAMP}, which give the session
 * zone's wall clock: two sessions (or JVMs, whose zone the drivers may pass on to the session) in different zones
 * would write and compare leases hours apart, and a DST change would move them. Time columns are {@code DATETIME(6)}
 * holding UTC: a {@code DATETIME} value never moves with the session zone, and it reaches the year 9999, where a
 * {@code TIMESTAMP} ends on 2038-01-19 and is converted to and from the session zone on every read and write.
 */
final class MySqlSql implements SqlVocabulary {

    @Override
    public String quote(String identifier) {
        return '`' + identifier + '`';
    }

    /** Baton's own time columns hold UTC without a zone: written from the UTC clock, read back as UTC. */
    @Override
    public boolean clockIsUtcWallClock() {
        return true;
    }

    @Override
    public String currentTimestamp() {
        return "UTC_TIMESTAMP(6)";
    }

    /** Both sides are zone-less UTC wall clocks: no session time zone enters (unlike {@code UNIX_TIMESTAMP}). */
    @Override
    public String clockMicros() {
        return "TIMESTAMPDIFF(MICROSECOND, '1970-01-01 00:00:00', UTC_TIMESTAMP(6))";
    }

    @Override
    public String plusMillis(String timestampSql, long millis) {
        return "TIMESTAMPADD(MICROSECOND, " + Math.multiplyExact(millis, 1000L) + ", " + timestampSql + ")";
    }

    @Override
    public String plusMillisParam(String timestampSql) {
        return "TIMESTAMPADD(MICROSECOND, ? * 1000, " + timestampSql + ")";
    }

    @Override
    public String columnType(ColumnType type) {
        return switch (type) {
            case BIGINT -> "BIGINT";
            case INT -> "INT";
            case SHORT_TEXT -> "VARCHAR(64)";
            case TEXT -> "TEXT";
            case TIMESTAMP -> "DATETIME(6) NULL";
        };
    }

    /**
     * Default collations compare {@code 'PAID '} and {@code 'paid'} equal to {@code 'PAID'}; the binary re-check makes
     * the guard exact while the plain {@code IN} still lets an index on the column serve it. The column is converted
     * to utf8mb4 before its bytes are compared, so that a non-ASCII code in a latin1 column matches too.
     */
    @Override
    public SqlFragment stateIn(String quotedColumn, List<Object> codes) {
        SqlFragment plain = SqlVocabulary.super.stateIn(quotedColumn, codes);
        if (!(codes.get(0) instanceof String)) {
            return plain;
        }
        // the literal's bytes are UTF-8 (utf8mb4 connections); a latin1 column's bytes are not, so convert first
        SqlFragment exact =
                SqlVocabulary.super.stateIn("CAST(CONVERT(" + quotedColumn + " USING utf8mb4) AS BINARY)", codes);
        return SqlFragment.join(" AND ", List.of(plain, exact));
    }

    /**
     * {@code DIV}: {@code /} gives a decimal of {@code div_precision_increment} digits, which a session may set to 0
     * (then {@code 2 / 3} rounds to 1).
     */
    @Override
    public String integerQuotient(String dividend, String divisor) {
        return "(" + dividend + ") DIV (" + divisor + ")";
    }

    /**
     * False: in a correlated subquery MariaDB 10.11 seeks {@code (msg_key, status, id)} by {@code msg_key} alone when
     * the status is a list (EXPLAIN: {@code ref}, key length of the key column only) and reads the key's delivered rows
     * too; an outbox claim with a million delivered rows took about 20 ms more per million (bench {@code outbox-purge}).
     */
    @Override
    public boolean seeksIndexByStateList() {
        return false;
    }

    /**
     * {@code TIMESTAMP} ends on 2038-01-19 (a lease or backoff past it fails), and compared with {@code
     * UTC_TIMESTAMP(6)} it is read in the session's zone, so sessions in different zones disagree about it. The fix is
     * {@code DATETIME(6)}; run it in a UTC session ({@code SET time_zone = '+00:00'}), where {@code MODIFY} converts the
     * stored instants to UTC wall-clock values (in another zone they would come out shifted by its offset).
     */
    @Override
    public String zoneSafeTimestampFix(String quotedTable, String quotedColumn, String typeName, boolean nullable) {
        if (!"timestamp".equalsIgnoreCase(typeName)) {
            return null;
        }
        return "/* in a session with SET time_zone = '+00:00' */ "
                + alterColumnType(quotedTable, quotedColumn, "DATETIME(6)", nullable);
    }

    /**
     * {@code CURRENT_TIMESTAMP}, {@code NOW()} and {@code LOCALTIMESTAMP} give the session zone's wall clock, which a
     * {@code DATETIME} stores as it is; Baton's clock is {@code UTC_TIMESTAMP(6)}. ({@code TIMESTAMP} is refused by
     * {@link #zoneSafeTimestampFix} whatever its default.)
     */
    @Override
    public String utcDefaultFor(String typeName, String columnDefault) {
        String bare = SqlVocabulary.bareExpression(columnDefault).replaceFirst("\\(\\d?\\)$", "");
        boolean local =
                switch (bare) {
                    case "current_timestamp", "now", "localtime", "localtimestamp" -> true;
                    default -> false;
                };
        return local && "datetime".equalsIgnoreCase(typeName) ? "(UTC_TIMESTAMP(6))" : null;
    }

    @Override
    public String alterColumnType(String quotedTable, String quotedColumn, String type, boolean nullable) {
        return "ALTER TABLE " + quotedTable + " MODIFY " + quotedColumn + " " + type
                + (nullable ? " NULL" : " NOT NULL");
    }

    /**
     * A named lock: held by the session, not the transaction, so it is released after the transaction ends (a session
     * that dies releases its locks). GET_LOCK answers 1 once held, 0 after the wait (60 s). Galera does not replicate
     * named locks: two nodes would each grant it.
     */
    @Override
    public ExclusiveLock exclusiveLock(long key) {
        String name = ExclusiveLock.nameOf(key);
        return new ExclusiveLock("SELECT GET_LOCK('" + name + "', 60)", "DO RELEASE_LOCK('" + name + "')");
    }

    /**
     * As {@link #exclusiveLock}, with the current database in the name (GET_LOCK's names are server-wide): {@code
     * baton_claim_<hash>_} and 16 hex digits of the MD5 of {@code DATABASE()}, 45 characters (MySQL allows 64).
     */
    @Override
    public ExclusiveLock exclusiveLockInCurrentSchema(long key, String quotedTable) {
        String name = "CONCAT('" + ExclusiveLock.nameOf(key) + "_', LEFT(MD5(COALESCE(DATABASE(), '')), 16))";
        return new ExclusiveLock("SELECT GET_LOCK(" + name + ", 60)", "DO RELEASE_LOCK(" + name + ")");
    }
}
