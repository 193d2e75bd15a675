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
     * the guard exact while the plain {@code IN} still lets an index on the column serve it.
     */
    @Override
    public SqlFragment stateIn(String quotedColumn, List<Object> codes) {
        SqlFragment plain = SqlVocabulary.super.stateIn(quotedColumn, codes);
        if (!(codes.get(0) instanceof String)) {
            return plain;
        }
        SqlFragment exact = SqlVocabulary.super.stateIn("CAST(" + quotedColumn + " AS BINARY)", codes);
        return SqlFragment.join(" AND ", List.of(plain, exact));
    }
}
