package dev.baton.internal.queue;

import dev.baton.ConfigurationException;
import dev.baton.spi.Rows;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.List;

/**
 * The bounds of the admin views' reads: a page is 1..{@value #MAX_PAGE} rows, a count stops at 1..{@value #MAX_COUNT},
 * both checked before any SQL and both in the SQL ({@code LIMIT}, {@code TOP}), so that no read walks more index
 * entries than it returns or counts, however many rows are dead.
 */
public final class AdminPages {
    /** The largest page. */
    public static final int MAX_PAGE = 1000;
    /** The largest bound of a count. */
    public static final int MAX_COUNT = 100_000;
    /** The longest principal. */
    public static final int MAX_PRINCIPAL = 200;

    private AdminPages() {}

    /** Refuses a page size outside 1..{@link #MAX_PAGE}. */
    public static void checkPage(int limit, String queue) {
        if (limit < 1 || limit > MAX_PAGE) {
            throw new ConfigurationException(
                    "limit must be 1.." + MAX_PAGE + ", was " + limit + " (queue '" + queue + "')");
        }
    }

    /** Refuses a count bound outside 1..{@link #MAX_COUNT}. */
    public static void checkCount(int limit, String queue) {
        if (limit < 1 || limit > MAX_COUNT) {
            throw new ConfigurationException(
                    "count limit must be 1.." + MAX_COUNT + ", was " + limit + " (queue '" + queue + "')");
        }
    }

    /** Refuses a blank or over-long principal. */
    public static String checkPrincipal(String principal) {
        if (principal == null || principal.isBlank() || principal.length() > MAX_PRINCIPAL) {
            throw new ConfigurationException("principal must be 1.." + MAX_PRINCIPAL + " characters, not blank, was "
                    + (principal == null ? "null" : principal.length() + " characters"));
        }
        return principal;
    }

    /**
     * {@code SELECT COUNT(*) FROM (SELECT 1 … <where> LIMIT limit)}: the rows of {@code fromWhere} ({@code FROM … WHERE
     * …}), counted up to {@code limit}.
     */
    public static long count(QueueShape<?> shape, String fromWhere, List<Object> binds, int limit, String operation) {
        checkCount(limit, shape.name);
        return shape.engine.reader().tx().autocommit(operation, c -> count(c, shape, fromWhere, binds, limit));
    }

    /** {@link #count(QueueShape, String, List, int, String)} on {@code c}; the limit is checked by the caller. */
    static long count(Connection c, QueueShape<?> shape, String fromWhere, List<Object> binds, int limit)
            throws SQLException {
        String sql = "SELECT COUNT(*) FROM ("
                + shape.dialect.sql().firstRows("SELECT 1 AS baton_one " + fromWhere, limit) + ") baton_counted";
        try (PreparedStatement ps = c.prepareStatement(sql)) {
            Rows.bind(ps, 1, binds);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getLong(1);
            }
        }
    }
}
