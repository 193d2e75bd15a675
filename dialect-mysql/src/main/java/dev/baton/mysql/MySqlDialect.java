package dev.baton.mysql;

import dev.baton.spi.ClaimSpec;
import dev.baton.spi.ClaimStatement;
import dev.baton.spi.DatabaseInfo;
import dev.baton.spi.Dialect;
import dev.baton.spi.Rows;
import dev.baton.spi.SqlError;
import dev.baton.spi.SqlFragment;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.SQLNonTransientConnectionException;
import java.sql.SQLRecoverableException;
import java.sql.SQLTransientConnectionException;
import java.sql.SQLTransientException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * MySQL 8.0.1+ and MariaDB 10.6+ (both have {@code SKIP LOCKED}; neither has {@code UPDATE … RETURNING}).
 *
 * <p>A claim is {@code SELECT id, <returned values> … ORDER BY … LIMIT n FOR UPDATE SKIP LOCKED}, then {@code UPDATE
 * … WHERE id IN (…) AND <guard>} (and, only when the returned values cannot be computed before the update, a read of
 * the claimed rows), in one READ COMMITTED transaction: REPEATABLE
 * READ would take gap locks. The order must be served by an index, or the locking read locks every candidate (the
 * queue's start-up check runs EXPLAIN to prove it).
 *
 * <p>Errors are classified by vendor code: Connector/J reports the lock-wait timeout 1205 with SQLState 40001 although
 * InnoDB rolled back only the statement, so Baton always rolls back explicitly before a retry.
 */
public final class MySqlDialect implements Dialect {
    private static final Pattern DUPLICATE_KEY = Pattern.compile("for key '([^']+)'");

    @Override
    public String name() {
        return "mysql";
    }

    @Override
    public boolean supports(DatabaseInfo info) {
        if (info.isMariaDb()) {
            return info.atLeast(10, 6);
        }
        return info.productName().equalsIgnoreCase("MySQL") && info.atLeast(8, 0);
    }

    @Override
    public int maxIdentifierLength() {
        return 64;
    }

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

    /**
     * Default collations compare {@code 'PAID '} and {@code 'paid'} equal to {@code 'PAID'}; the binary re-check makes
     * the guard exact while the plain {@code IN} still lets an index on the column serve it.
     */
    @Override
    public SqlFragment stateIn(String quotedColumn, List<Object> codes) {
        SqlFragment plain = Dialect.super.stateIn(quotedColumn, codes);
        if (!(codes.get(0) instanceof String)) {
            return plain;
        }
        SqlFragment exact = Dialect.super.stateIn("CAST(" + quotedColumn + " AS BINARY)", codes);
        return SqlFragment.join(" AND ", List.of(plain, exact));
    }

    @Override
    public String plusMillisParam(String timestampSql) {
        return "TIMESTAMPADD(MICROSECOND, ? * 1000, " + timestampSql + ")";
    }

    /**
     * EXPLAINs the claim's locking read: a full scan ({@code type = ALL}) or {@code Using filesort} means InnoDB would
     * lock every candidate row, so a second worker gets nothing (OneUptime #3117).
     */
    @Override
    public Optional<String> claimPlanProblem(Connection c, ClaimSpec spec, Object[] args) throws SQLException {
        String sql = "EXPLAIN " + lockingPick(spec);
        List<String> problems = new ArrayList<>();
        try (PreparedStatement ps = c.prepareStatement(sql)) {
            Rows.bind(ps, 1, SqlFragment.resolve(spec.pickWhere().binds(), args));
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    String type = rs.getString("type");
                    String key = rs.getString("key");
                    String extra = String.valueOf(rs.getString("Extra"));
                    // ALL: full table scan; index: full scan of an index (e.g. the primary key in id order)
                    if ("ALL".equalsIgnoreCase(type) || "index".equalsIgnoreCase(type) || key == null) {
                        problems.add("full scan (type " + type + ", key " + key + ")");
                    }
                    if (extra.contains("filesort")) {
                        problems.add("Using filesort (" + extra + ")");
                    }
                }
            }
        }
        return problems.isEmpty()
                ? Optional.empty()
                : Optional.of("the claim is not served by an index: " + String.join("; ", problems));
    }

    @Override
    public SqlError classify(SQLException e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (!(t instanceof SQLException s)) {
                if (t instanceof java.io.IOException) {
                    return SqlError.CONNECTION_LOST;
                }
                continue;
            }
            switch (s.getErrorCode()) {
                case 1062, 1586 -> {
                    Matcher m = DUPLICATE_KEY.matcher(String.valueOf(s.getMessage()));
                    String key = m.find() ? m.group(1) : null;
                    // MySQL 8 names the key as table.key, MariaDB as key
                    return SqlError.uniqueViolation(key == null ? null : key.substring(key.lastIndexOf('.') + 1));
                }
                // deadlock, lock wait timeout, MariaDB snapshot-isolation conflict, NOWAIT lock failure,
                // query interrupted (KILL QUERY)
                case 1213, 1205, 1020, 3572, 1317 -> {
                    return SqlError.TRANSIENT;
                }
                // server gone, lost connection, connection killed, server shutdown
                case 2006, 2013, 1927, 1053, 4031 -> {
                    return SqlError.CONNECTION_LOST;
                }
                default -> {}
            }
            if (s instanceof SQLTransientConnectionException
                    || s instanceof SQLNonTransientConnectionException
                    || s instanceof SQLRecoverableException
                    || (s.getSQLState() != null && s.getSQLState().startsWith("08"))) {
                return SqlError.CONNECTION_LOST;
            }
            if (s instanceof SQLTransientException) {
                return SqlError.TRANSIENT;
            }
        }
        return SqlError.OTHER;
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

    /** The claim's first statement: the locking read that picks the batch. */
    private static String lockingPick(ClaimSpec spec) {
        String columns = readsWhilePicking(spec) ? String.join(", ", pickedColumns(spec)) : spec.idColumn();
        return spec.pickSql(columns) + " LIMIT " + spec.limit() + " FOR UPDATE SKIP LOCKED";
    }

    private static boolean readsWhilePicking(ClaimSpec spec) {
        return !spec.returning().isEmpty() && !spec.returningBeforeUpdate().isEmpty();
    }

    /** The locking read's columns when it returns the claimed values: those values, with the id first if absent. */
    private static List<String> pickedColumns(ClaimSpec spec) {
        List<String> columns = new ArrayList<>(spec.returningBeforeUpdate());
        if (!columns.contains(spec.idColumn())) {
            columns.add(0, spec.idColumn());
        }
        return columns;
    }

    @Override
    public ClaimStatement claimStatement(ClaimSpec spec) {
        String selectSql = lockingPick(spec);
        String updatePrefix =
                "UPDATE " + spec.table() + " SET " + spec.set().sql() + " WHERE " + spec.idColumn() + " IN (";
        String updateSuffix = ") AND " + spec.where().sql();
        String readPrefix = "SELECT " + String.join(", ", spec.returning()) + " FROM " + spec.table() + " WHERE "
                + spec.idColumn() + " IN (";
        List<Object> pickBinds = spec.pickWhere().binds();
        List<Object> whereBinds = spec.where().binds();
        List<Object> setBinds = spec.set().binds();
        int width = spec.returning().size();
        // MariaDB has no UPDATE … RETURNING: the locking read returns the values the update will write where the spec
        // can say them before it (one round trip less), else the claimed rows are read again after the update.
        boolean readWhilePicking = readsWhilePicking(spec);
        List<String> picked = readWhilePicking ? pickedColumns(spec) : List.of(spec.idColumn());
        int idAt = picked.indexOf(spec.idColumn()) + 1;
        int valuesFrom = picked.size() - width + 1; // the returned values are the last columns of the locking read
        String[] updateByCount = new String[spec.limit() + 1];
        String[] readByCount = new String[spec.limit() + 1];
        List<String> text = width == 0 || readWhilePicking
                ? List.of(selectSql, updatePrefix + "…" + updateSuffix)
                : List.of(selectSql, updatePrefix + "…" + updateSuffix, readPrefix + "…)");
        return ClaimStatement.of(text, (connection, args) -> {
            List<Object> ids = new ArrayList<>();
            List<Object[]> values = readWhilePicking ? new ArrayList<>() : List.of();
            try (PreparedStatement ps = connection.prepareStatement(selectSql)) {
                Rows.bind(ps, 1, SqlFragment.resolve(pickBinds, args));
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        ids.add(rs.getObject(idAt));
                        if (readWhilePicking) {
                            Object[] row = new Object[width];
                            for (int i = 0; i < width; i++) {
                                row[i] = rs.getObject(valuesFrom + i);
                            }
                            values.add(row);
                        }
                    }
                }
            }
            if (ids.isEmpty()) {
                return List.of();
            }
            int n = ids.size();
            String update = updateByCount[n];
            if (update == null) {
                update = updatePrefix + Rows.placeholders(n) + updateSuffix;
                updateByCount[n] = update; // benign race: every thread computes the same string
            }
            int updated;
            try (PreparedStatement ps = connection.prepareStatement(update)) {
                int i = Rows.bind(ps, 1, SqlFragment.resolve(setBinds, args));
                i = Rows.bind(ps, i, ids);
                Rows.bind(ps, i, SqlFragment.resolve(whereBinds, args));
                updated = ps.executeUpdate();
            }
            if (updated != n) {
                // Cannot happen while the rows are locked and the guard is repeated; if it does, claim nothing.
                throw new SQLTransientException(
                        "claim locked " + n + " rows but updated " + updated + "; rolled back", "40001");
            }
            if (width == 0) {
                return Rows.empty(n);
            }
            if (readWhilePicking) {
                return values;
            }
            String read = readByCount[n];
            if (read == null) {
                read = readPrefix + Rows.placeholders(n) + ")";
                readByCount[n] = read;
            }
            try (PreparedStatement ps = connection.prepareStatement(read)) {
                Rows.bind(ps, 1, ids);
                try (ResultSet rs = ps.executeQuery()) {
                    return Rows.read(rs, width);
                }
            }
        });
    }

    @Override
    public List<String> idempotencyKeysDdl(String quotedTable, String quotedIndex) {
        return MySqlLibraryTables.idempotencyKeysDdl(quotedTable, quotedIndex);
    }

    @Override
    public List<String> inboxDdl(String quotedTable, String quotedIndex) {
        return MySqlLibraryTables.inboxDdl(quotedTable, quotedIndex);
    }

    @Override
    public String deleteBatch(String quotedTable, List<String> quotedKeyColumns, String where, int limit) {
        return MySqlLibraryTables.deleteBatch(quotedTable, where, limit);
    }

    /** Strict mode, and a max_allowed_packet large enough for the largest value. */
    @Override
    public List<String> storageProblems(javax.sql.DataSource dataSource, long largestValueBytes) throws SQLException {
        return MySqlLibraryTables.storageProblems(dataSource, largestValueBytes);
    }

    /** Text columns of the outbox compare byte for byte: keys differing in case or trailing spaces are different. */
    @Override
    public List<String> outboxDdl(String quotedTable, String bareTable) {
        return List.of(
                "CREATE TABLE " + quotedTable + " (\n"
                        + "    `id` BIGINT NOT NULL AUTO_INCREMENT PRIMARY KEY,\n"
                        + "    `topic` VARCHAR(255) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL,\n"
                        + "    `msg_key` VARCHAR(255) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NULL,\n"
                        + "    `dedup_key` VARCHAR(255) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NULL,\n"
                        + "    `payload` LONGBLOB NOT NULL,\n"
                        + "    `headers` TEXT CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NULL,\n"
                        + "    `status` INT NOT NULL,\n"
                        + "    `lease_until` TIMESTAMP(6) NULL,\n"
                        + "    `claim_token` BIGINT NULL,\n"
                        + "    `attempts` INT NOT NULL DEFAULT 0,\n"
                        + "    `next_attempt_at` TIMESTAMP(6) NULL,\n"
                        + "    `last_error` VARCHAR(1000) NULL,\n"
                        + "    `created_at` TIMESTAMP(6) NOT NULL DEFAULT CURRENT_TIMESTAMP(6)\n"
                        + ") ENGINE=InnoDB",
                "CREATE UNIQUE INDEX " + quote(bareTable + "_dedup") + " ON " + quotedTable + " (`dedup_key`)",
                "CREATE INDEX " + quote(bareTable + "_claim") + " ON " + quotedTable + " (`status`, `id`)",
                "CREATE INDEX " + quote(bareTable + "_key") + " ON " + quotedTable + " (`msg_key`, `status`, `id`)");
    }
}
