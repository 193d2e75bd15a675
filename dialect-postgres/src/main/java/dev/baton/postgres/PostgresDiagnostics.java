package dev.baton.postgres;

import dev.baton.spi.BatchUpdateSpec;
import dev.baton.spi.Diagnostics;
import dev.baton.spi.Rows;
import dev.baton.spi.SqlError;
import dev.baton.spi.SqlFragment;
import java.io.IOException;
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

/** PostgreSQL's errors by SQLState (pgjdbc chains causes), and its claim plans by EXPLAIN. */
final class PostgresDiagnostics implements Diagnostics {
    private static final Pattern INDEX_SCAN = Pattern.compile("Index (?:Only )?Scan(?: Backward)? using (\\S+) on");
    private static final Pattern UNIQUE = Pattern.compile("unique constraint \"([^\"]+)\"");
    /** {@code column "x" of relation "t" does not exist}, {@code column "x" does not exist}, {@code column t.x …}. */
    private static final Pattern UNDEFINED_COLUMN = Pattern.compile("column \"?([^\"\\s]+)\"? ");

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
                if (state.equals("42703")) {
                    Matcher m = UNDEFINED_COLUMN.matcher(String.valueOf(s.getMessage()));
                    return SqlError.undefinedColumn(m.find() ? bare(m.group(1)) : null);
                }
                switch (state) {
                    case "40001", "40P01", "55P03" -> {
                        return SqlError.TRANSIENT;
                    }
                    // statement timeout, pg_cancel_backend, a JDBC query timeout (pgjdbc cancels): the statement did
                    // not fail for its values, so it must never count as the row's fault
                    case "57014" -> {
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
                        // data exceptions (22: too long, out of range, invalid text) and integrity constraints (23:
                        // not null, foreign key, check; 23505 above)
                        if (state.startsWith("22") || state.startsWith("23")) {
                            return SqlError.VALUE_REFUSED;
                        }
                    }
                }
            }
            if (t instanceof IOException) {
                return SqlError.CONNECTION_LOST;
            }
        }
        return SqlError.OTHER;
    }

    /** {@code t.x} → {@code x}. */
    private static String bare(String column) {
        return column.substring(column.lastIndexOf('.') + 1);
    }

    /**
     * EXPLAINs the claim's SELECT with sequential scans and sorts priced out ({@code enable_seqscan = off},
     * {@code enable_sort = off}, in a rolled-back transaction): if the plan still scans the table or sorts, no index
     * serves the claim, and its cost would grow with the table.
     */
    @Override
    public Optional<String> claimPlanProblem(Connection c, BatchUpdateSpec spec, Object[] args) throws SQLException {
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

    /** The column of the claim's first guard ({@code "state" = ?} or {@code "state" IN (...)}), bare. */
    private static String stateColumnOf(BatchUpdateSpec spec) {
        String where = spec.where().sql();
        if (!where.startsWith("\"")) {
            return null;
        }
        int end = where.indexOf('"', 1);
        return end > 0 ? where.substring(1, end) : null;
    }
}
