package dev.baton.testkit.failover;

import dev.baton.testservers.DatabaseKind;
import dev.baton.testservers.TestDatabase;
import dev.baton.testservers.TestDatabases;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import javax.sql.DataSource;

/**
 * The external sink of the failover process suite, on a server the failover does not touch (the local PostgreSQL or
 * MariaDB), so its record survives: {@code <name>} keeps every call with its claim token and send token (the plain
 * sink), {@code <name>_fence} the highest send token per row (the fenced sink, which refuses a call whose token is not
 * above it). The fence rows are made up front, so a call only locks and raises one: the same SQL on both databases.
 */
public final class FailoverSink {
    private final TestDatabase db;
    private final String name;

    private FailoverSink(TestDatabase db, String name) {
        this.db = db;
        this.name = name;
    }

    /** A call recorded by the sink, in the sink's order. */
    public record Call(long row, long claimToken, long sendToken, String process, boolean fenced) {}

    /** Creates the sink's tables on {@code db} (PostgreSQL or MariaDB), with fence rows for ids 1 to {@code rows}. */
    public static FailoverSink create(TestDatabase db, String prefix, int rows) {
        FailoverSink sink = new FailoverSink(db, TestDatabases.uniqueName(prefix));
        String seq = db.kind() == DatabaseKind.POSTGRES ? "BIGSERIAL" : "BIGINT AUTO_INCREMENT";
        db.execute(
                "CREATE TABLE " + sink.name + " (seq " + seq + " PRIMARY KEY, row_id BIGINT NOT NULL,"
                        + " claim_token BIGINT NOT NULL, send_token BIGINT NOT NULL, process VARCHAR(20) NOT NULL,"
                        + " fenced BOOLEAN NOT NULL)",
                "CREATE TABLE " + sink.name + "_fence (row_id BIGINT PRIMARY KEY, high BIGINT NOT NULL)");
        try (Connection c = db.connect();
                PreparedStatement ps =
                        c.prepareStatement("INSERT INTO " + sink.name + "_fence (row_id, high) VALUES (?, 0)")) {
            c.setAutoCommit(false);
            for (long id = 1; id <= rows; id++) {
                ps.setLong(1, id);
                ps.addBatch();
            }
            ps.executeBatch();
            c.commit();
        } catch (SQLException e) {
            throw new AssertionError(e);
        }
        return sink;
    }

    /** The plain sink's table; the fence is {@code name() + "_fence"}. */
    public String name() {
        return name;
    }

    /** The sink's server. */
    public TestDatabase database() {
        return db;
    }

    /**
     * One call: recorded by the plain sink; the fenced sink accepts it only if {@code sendToken} is above the row's
     * fence, which it then raises. One transaction on the sink's server, the fence row locked.
     */
    public static void send(DataSource sinkDs, String sink, long id, long claimToken, long sendToken, String process)
            throws SQLException {
        try (Connection c = sinkDs.getConnection()) {
            c.setAutoCommit(false);
            boolean accepted = sendToken > lockFence(c, sink, id);
            if (accepted) {
                raise(c, sink, id, sendToken);
            }
            try (PreparedStatement ps = c.prepareStatement("INSERT INTO " + sink
                    + " (row_id, claim_token, send_token, process, fenced) VALUES (?, ?, ?, ?, ?)")) {
                ps.setLong(1, id);
                ps.setLong(2, claimToken);
                ps.setLong(3, sendToken);
                ps.setString(4, process);
                ps.setBoolean(5, accepted);
                ps.executeUpdate();
            }
            c.commit();
        }
    }

    /**
     * What a reconciler asks: raises the row's fence to {@code attempts} (every send of the row so far) and answers
     * whether the plain sink has a call of the row.
     */
    public static boolean raiseAndFind(DataSource sinkDs, String sink, long id, long attempts) throws SQLException {
        try (Connection c = sinkDs.getConnection()) {
            c.setAutoCommit(false);
            lockFence(c, sink, id);
            raise(c, sink, id, attempts);
            int found;
            try (PreparedStatement ps = c.prepareStatement("SELECT COUNT(*) FROM " + sink + " WHERE row_id = ?")) {
                ps.setLong(1, id);
                try (ResultSet rs = ps.executeQuery()) {
                    rs.next();
                    found = rs.getInt(1);
                }
            }
            c.commit();
            return found > 0;
        }
    }

    /** Every call, in the sink's order. */
    public List<Call> calls() throws SQLException {
        List<Call> out = new ArrayList<>();
        try (Connection c = db.connect();
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery(
                        "SELECT row_id, claim_token, send_token, process, fenced FROM " + name + " ORDER BY seq")) {
            while (rs.next()) {
                out.add(new Call(rs.getLong(1), rs.getLong(2), rs.getLong(3), rs.getString(4), rs.getBoolean(5)));
            }
        }
        return out;
    }

    /** How many calls the sink has. */
    public int count() {
        try (Connection c = db.connect();
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT COUNT(*) FROM " + name)) {
            rs.next();
            return rs.getInt(1);
        } catch (SQLException e) {
            throw new AssertionError(e);
        }
    }

    /** Drops both tables. */
    public void drop() {
        db.dropTableIfExists(name);
        db.dropTableIfExists(name + "_fence");
    }

    private static long lockFence(Connection c, String sink, long id) throws SQLException {
        try (PreparedStatement ps =
                c.prepareStatement("SELECT high FROM " + sink + "_fence WHERE row_id = ? FOR UPDATE")) {
            ps.setLong(1, id);
            try (ResultSet rs = ps.executeQuery()) {
                if (!rs.next()) {
                    throw new SQLException("no fence row for row " + id + " in " + sink + "_fence");
                }
                return rs.getLong(1);
            }
        }
    }

    private static void raise(Connection c, String sink, long id, long to) throws SQLException {
        try (PreparedStatement ps =
                c.prepareStatement("UPDATE " + sink + "_fence SET high = ? WHERE row_id = ? AND high < ?")) {
            ps.setLong(1, to);
            ps.setLong(2, id);
            ps.setLong(3, to);
            ps.executeUpdate();
        }
    }
}
