package dev.baton.mysql;

import dev.baton.spi.ColumnType;
import dev.baton.spi.SqlFragment;
import dev.baton.spi.SqlVocabulary;
import java.util.List;

/** MySQL's and MariaDB's words: backquoted identifiers, {@code CURRENT_TIMESTAMP(6)}, {@code TIMESTAMPADD}. */
final class MySqlSql implements SqlVocabulary {

    @Override
    public String quote(String identifier) {
        return '`' + identifier + '`';
    }

    @Override
    public String currentTimestamp() {
        return "CURRENT_TIMESTAMP(6)";
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
            case TIMESTAMP -> "TIMESTAMP(6) NULL";
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

    @Override
    public String alterColumnType(String quotedTable, String quotedColumn, String type, boolean nullable) {
        return "ALTER TABLE " + quotedTable + " MODIFY " + quotedColumn + " " + type
                + (nullable ? " NULL" : " NOT NULL");
    }
}
