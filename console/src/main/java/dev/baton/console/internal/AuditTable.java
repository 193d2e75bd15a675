package dev.baton.console.internal;

import dev.baton.DataAccessException;
import dev.baton.console.ConsoleAction;
import dev.baton.spi.Dialect;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;

/**
 * The console's audit trail in Baton's own table ({@code V10__baton_console_audit.sql} of each dialect): one row per
 * confirmed action and per refused attempt, written in autocommit by the request's thread, read by every instance.
 * The evidence is bound as it was typed. Thread-safe.
 */
public final class AuditTable {
    private final DataSource dataSource;
    private final String insert;
    private final String recent;
    private final String ofRow;

    public AuditTable(DataSource dataSource, Dialect dialect, String table) {
        this.dataSource = dataSource;
        String t = quoteTable(dialect, table);
        String cols = "at_utc, principal, action, queue_name, target, verdict, force_flag, evidence, outcome, result";
        StringBuilder q = new StringBuilder();
        for (String c : cols.split(", ")) {
            q.append(q.length() == 0 ? "" : ", ").append(dialect.sql().quote(c));
        }
        String quoted = q.toString();
        this.insert = "INSERT INTO " + t + " (" + quoted + ") VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)";
        String id = dialect.sql().quote("id");
        this.recent = dialect.sql().firstRows("SELECT " + quoted + " FROM " + t + " ORDER BY " + id + " DESC", 100);
        this.ofRow = dialect.sql()
                .firstRows(
                        "SELECT " + quoted + " FROM " + t + " WHERE "
                                + dialect.sql().quote("queue_name") + " = ? AND "
                                + dialect.sql().quote("target") + " = ? ORDER BY " + id + " DESC",
                        100);
    }

    /** The insert, the read of the latest rows and the read of one row's: rendered once, for tests of their text. */
    public List<String> sql() {
        return List.of(insert, recent, ofRow);
    }

    private static String quoteTable(Dialect dialect, String table) {
        int dot = table.indexOf('.');
        return dot < 0
                ? dialect.sql().quote(table)
                : dialect.sql().quote(table.substring(0, dot)) + "."
                        + dialect.sql().quote(table.substring(dot + 1));
    }

    /** One row of the trail. */
    public record Entry(
            Instant at,
            String principal,
            String action,
            String queue,
            @Nullable String target,
            @Nullable String verdict,
            boolean force,
            @Nullable String evidence,
            String outcome,
            String result) {
        /** As the overview's table shows it. */
        public ConsoleAction asConsoleAction() {
            String what = action + (verdict == null ? "" : " (" + verdict + ")") + (force ? " (even if sent)" : "");
            return new ConsoleAction(at, principal, what, queue, target, evidence, result);
        }
    }

    public void record(Entry e) {
        try (Connection c = dataSource.getConnection();
                PreparedStatement ps = c.prepareStatement(insert)) {
            ps.setObject(1, LocalDateTime.ofInstant(e.at(), ZoneOffset.UTC));
            ps.setString(2, cut(e.principal(), 200));
            ps.setString(3, cut(e.action(), 40));
            ps.setString(4, cut(e.queue(), 200));
            ps.setString(5, e.target() == null ? null : cut(e.target(), 400));
            ps.setString(6, e.verdict() == null ? null : cut(e.verdict(), 200));
            ps.setInt(7, e.force() ? 1 : 0);
            ps.setString(8, e.evidence());
            ps.setString(9, cut(e.outcome(), 20));
            ps.setString(10, cut(e.result(), 1000));
            ps.executeUpdate();
        } catch (SQLException ex) {
            throw new DataAccessException("write the console's audit row", ex);
        }
    }

    /** The latest 100 rows, oldest first. */
    public List<Entry> recent() {
        return read(recent, null, null);
    }

    /** The latest 100 rows about {@code target} of {@code queue}, oldest first. */
    public List<Entry> ofRow(String queue, String target) {
        return read(ofRow, queue, target);
    }

    private List<Entry> read(String sql, @Nullable String queue, @Nullable String target) {
        try (Connection c = dataSource.getConnection();
                PreparedStatement ps = c.prepareStatement(sql)) {
            if (queue != null) {
                ps.setString(1, queue);
                ps.setString(2, target);
            }
            List<Entry> out = new ArrayList<>();
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    out.add(new Entry(
                            rs.getObject(1, LocalDateTime.class).toInstant(ZoneOffset.UTC),
                            rs.getString(2),
                            rs.getString(3),
                            rs.getString(4),
                            rs.getString(5),
                            rs.getString(6),
                            rs.getInt(7) != 0,
                            rs.getString(8),
                            rs.getString(9),
                            rs.getString(10)));
                }
            }
            java.util.Collections.reverse(out);
            return out;
        } catch (SQLException ex) {
            throw new DataAccessException("read the console's audit rows", ex);
        }
    }

    private static String cut(String s, int max) {
        return s.length() <= max ? s : s.substring(0, max);
    }
}
