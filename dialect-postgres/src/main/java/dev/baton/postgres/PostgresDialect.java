package dev.baton.postgres;

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
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * PostgreSQL 12 and later.
 *
 * <p>Claims are one statement: a {@code MATERIALIZED} CTE picks and locks the rows ({@code FOR NO KEY UPDATE SKIP
 * LOCKED}, so foreign-key checks on the rows do not block) and the {@code UPDATE … FROM} it re-checks the guard and
 * returns the new values. Not {@code WHERE id IN (subquery … LIMIT n)}, which PostgreSQL may evaluate more than once
 * and so claim more than n rows (BUG #15715). The limit is rendered into the text so that a server-side prepared
 * statement never falls back to a generic plan that scans the table.
 */
public final class PostgresDialect implements Dialect {
    private static final Pattern INDEX_SCAN = Pattern.compile("Index (?:Only )?Scan(?: Backward)? using (\\S+) on");
    private static final Pattern UNIQUE = Pattern.compile("unique constraint \"([^\"]+)\"");

    @Override
    public String name() {
        return "postgres";
    }

    @Override
    public boolean supports(DatabaseInfo info) {
        return info.productName().equalsIgnoreCase("PostgreSQL") && info.major() >= 12;
    }

    @Override
    public int maxIdentifierLength() {
        return 63;
    }

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

    @Override
    public String plusMillis(String timestampSql, long millis) {
        return "(" + timestampSql + " + interval '" + millis + " milliseconds')";
    }

    @Override
    public String plusMillisParam(String timestampSql) {
        return "(" + timestampSql + " + (?::bigint) * interval '1 millisecond')";
    }

    /**
     * EXPLAINs the claim's SELECT with sequential scans and sorts priced out ({@code enable_seqscan = off},
     * {@code enable_sort = off}, in a rolled-back transaction): if the plan still scans the table or sorts, no index
     * serves the claim, and its cost would grow with the table.
     */
    @Override
    public Optional<String> claimPlanProblem(Connection c, ClaimSpec spec, Object[] args) throws SQLException {
        String sql = "EXPLAIN " + spec.pickSql(spec.idColumn()) + " LIMIT " + spec.limit();
        boolean autoCommit = c.getAutoCommit();
        c.setAutoCommit(false);
        List<String> plan = new ArrayList<>();
        try {
            try (Statement s = c.createStatement()) {
                s.execute("SET LOCAL enable_seqscan = off");
                s.execute("SET LOCAL enable_sort = off");
            }
            try (PreparedStatement ps = c.prepareStatement(sql)) {
                Rows.bind(ps, 1, SqlFragment.resolve(spec.pickWhere().binds(), args));
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        plan.add(rs.getString(1));
                    }
                }
            }
        } finally {
            c.rollback();
            c.setAutoCommit(autoCommit);
        }
        String text = String.join("\n", plan);
        if (text.contains("Seq Scan") || text.contains("Sort  (") || text.contains("Sort (")) {
            return Optional.of("no index serves the claim; the plan is:\n" + text);
        }
        // The picking scan must use an index led by the state column, or a partial index on the claimable rows: an
        // index scanned in id order with the state as a filter walks every completed row first.
        String stateColumn = stateColumnOf(spec);
        Matcher scan = INDEX_SCAN.matcher(text);
        if (stateColumn != null && scan.find()) {
            String definition = indexDefinition(c, scan.group(1));
            String quoted = "\"?" + Pattern.quote(stateColumn) + "\"?";
            boolean leading = Pattern.compile("\\(\\s*" + quoted + "\\s*[,)]")
                    .matcher(definition)
                    .find();
            boolean partial =
                    Pattern.compile("WHERE.*" + quoted).matcher(definition).find();
            if (!leading && !partial) {
                return Optional.of("the claim scans index " + scan.group(1) + " (" + definition + ") filtering on "
                        + stateColumn + ", which walks every completed row; the plan is:\n" + text);
            }
        }
        return Optional.empty();
    }

    private static String indexDefinition(Connection c, String index) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(
                "SELECT pg_get_indexdef(i.oid) FROM pg_class i WHERE i.relkind = 'i' AND i.relname = ?")) {
            ps.setString(1, index.replace("\"", ""));
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() ? rs.getString(1) : "";
            }
        }
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

    /** The column of the claim's first guard ({@code "state" = ?} or {@code "state" IN (...)}), bare. */
    private static String stateColumnOf(ClaimSpec spec) {
        String where = spec.where().sql();
        if (!where.startsWith("\"")) {
            return null;
        }
        int end = where.indexOf('"', 1);
        return end > 0 ? where.substring(1, end) : null;
    }

    @Override
    public SqlError classify(SQLException e) {
        if ("25P02".equals(e.getSQLState())) {
            // "current transaction is aborted": pgjdbc chains the earlier error (maybe a 23505) as the cause, but this
            // statement failed because the transaction is dead, not because of a duplicate
            return SqlError.OTHER;
        }
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof SQLException s && s.getSQLState() != null) {
                String state = s.getSQLState();
                if (state.equals("23505")) {
                    Matcher m = UNIQUE.matcher(String.valueOf(s.getMessage()));
                    return SqlError.uniqueViolation(m.find() ? m.group(1) : null);
                }
                switch (state) {
                    case "40001", "40P01", "55P03" -> {
                        return SqlError.TRANSIENT;
                    }
                    // pgjdbc does not treat 57P01 (terminated by administrator) as a connection error (#4438)
                    case "57P01", "57P02", "57P03" -> {
                        return SqlError.CONNECTION_LOST;
                    }
                    default -> {
                        if (state.startsWith("08")) {
                            return SqlError.CONNECTION_LOST;
                        }
                    }
                }
            }
            if (t instanceof java.io.IOException) {
                return SqlError.CONNECTION_LOST;
            }
        }
        return SqlError.OTHER;
    }

    @Override
    public boolean failedStatementAbortsTransaction() {
        return true;
    }

    @Override
    public boolean claimNeedsTransaction() {
        return false; // one statement, atomic on its own
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

    @Override
    public ClaimStatement claimStatement(ClaimSpec spec) {
        StringBuilder sql = new StringBuilder("WITH baton_claim AS MATERIALIZED (")
                .append(spec.pickSql(spec.idColumn() + " AS baton_claimed_id"));
        sql.append(" LIMIT ")
                .append(spec.limit())
                .append(" FOR NO KEY UPDATE SKIP LOCKED) UPDATE ")
                .append(spec.table())
                .append(" AS baton_target SET ")
                .append(spec.set().sql())
                .append(" FROM baton_claim WHERE baton_target.")
                .append(spec.idColumn())
                .append(" = baton_claim.baton_claimed_id AND ")
                .append(spec.where().sql());
        if (!spec.returning().isEmpty()) {
            sql.append(" RETURNING ");
            List<String> cols = new ArrayList<>();
            for (String c : spec.returning()) {
                cols.add("baton_target." + c);
            }
            sql.append(String.join(", ", cols));
        }
        String text = sql.toString();
        List<Object> binds = new ArrayList<>(spec.pickWhere().binds());
        binds.addAll(spec.set().binds());
        binds.addAll(spec.where().binds());
        int width = spec.returning().size();
        return ClaimStatement.singleStatement(text, binds, width);
    }

    @Override
    public List<String> idempotencyKeysDdl(String quotedTable, String quotedIndex) {
        return PostgresLibraryTables.idempotencyKeysDdl(quotedTable, quotedIndex);
    }

    @Override
    public List<String> inboxDdl(String quotedTable, String quotedIndex) {
        return PostgresLibraryTables.inboxDdl(quotedTable, quotedIndex);
    }

    @Override
    public String insertIfAbsent(
            String quotedTable, List<String> quotedColumns, List<String> values, List<String> quotedKeyColumns) {
        return PostgresLibraryTables.insertIfAbsent(quotedTable, quotedColumns, values, quotedKeyColumns);
    }

    @Override
    public String deleteBatch(String quotedTable, List<String> quotedKeyColumns, String where, int limit) {
        return PostgresLibraryTables.deleteBatch(quotedTable, quotedKeyColumns, where, limit);
    }

    @Override
    public List<String> outboxDdl(String quotedTable, String bareTable) {
        return List.of(
                "CREATE TABLE " + quotedTable + " (\n"
                        + "    \"id\" BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,\n"
                        + "    \"topic\" VARCHAR(255) NOT NULL,\n"
                        + "    \"msg_key\" VARCHAR(255) NULL,\n"
                        + "    \"dedup_key\" VARCHAR(255) NULL,\n"
                        + "    \"payload\" BYTEA NOT NULL,\n"
                        + "    \"headers\" TEXT NULL,\n"
                        + "    \"status\" INTEGER NOT NULL,\n"
                        + "    \"lease_until\" TIMESTAMPTZ NULL,\n"
                        + "    \"claim_token\" BIGINT NULL,\n"
                        + "    \"attempts\" INTEGER NOT NULL DEFAULT 0,\n"
                        + "    \"next_attempt_at\" TIMESTAMPTZ NULL,\n"
                        + "    \"last_error\" VARCHAR(1000) NULL,\n"
                        + "    \"created_at\" TIMESTAMPTZ NOT NULL\n"
                        + ")",
                "CREATE UNIQUE INDEX " + quote(bareTable + "_dedup") + " ON " + quotedTable + " (\"dedup_key\")",
                "CREATE INDEX " + quote(bareTable + "_claim") + " ON " + quotedTable + " (\"status\", \"id\")",
                "CREATE INDEX " + quote(bareTable + "_key") + " ON " + quotedTable
                        + " (\"msg_key\", \"status\", \"id\")");
    }
}
