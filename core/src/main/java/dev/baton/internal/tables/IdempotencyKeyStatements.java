package dev.baton.internal.tables;

import dev.baton.internal.Engine;
import dev.baton.internal.tx.Drain;
import dev.baton.internal.values.Identifiers;
import dev.baton.spi.Dialect;
import dev.baton.spi.SqlError;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;

/**
 * The statements of an idempotency-key table, rendered once per binding: insert-if-absent, take over an expired lease,
 * locking read, complete, fail, and one batch of the expiry cleanup. Immutable and thread-safe.
 */
public final class IdempotencyKeyStatements {
    private static final String IN_PROGRESS = "'in_progress'";
    private static final String COMPLETED = "completed";

    /**
     * A stored key as the locking read sees it.
     *
     * @param fingerprint the request's fingerprint
     * @param completed whether the key is completed
     * @param fence the token of the request that owns (or completed) it
     * @param attempts how many requests started it
     * @param response the stored response, or null
     */
    public record Stored(String fingerprint, boolean completed, long fence, int attempts, byte[] response) {}

    private final Dialect dialect;
    private final String insertSql;
    private final String takeOverSql;
    private final String readSql;
    private final String completeSql;
    private final String failSql;
    private final String deleteExpiredSql;
    private final int deleteBatch;

    /** Renders the statements for {@code table} with the given lease and retention. */
    public IdempotencyKeyStatements(Dialect d, String table, Duration lease, Duration retention) {
        this.dialect = d;
        String t = Identifiers.quoteTable(d, table);
        String scope = d.sql().quote("scope");
        String key = d.sql().quote("idempotency_key");
        String fingerprint = d.sql().quote("fingerprint");
        String state = d.sql().quote("state");
        String token = d.sql().quote("token");
        String attempts = d.sql().quote("attempts");
        String lockedUntil = d.sql().quote("locked_until");
        String response = d.sql().quote("response");
        String createdAt = d.sql().quote("created_at");
        String updatedAt = d.sql().quote("updated_at");
        String now = d.sql().currentTimestamp();
        String leaseEnd = d.sql().plusMillis(now, lease.toMillis());
        String byKey = scope + " = ? AND " + key + " = ?";
        String owned = byKey + " AND " + token + " = ? AND " + state + " = " + IN_PROGRESS;
        this.insertSql = d.ownTables()
                .insertIfAbsent(
                        t,
                        List.of(scope, key, fingerprint, state, token, attempts, lockedUntil, createdAt, updatedAt),
                        List.of("?", "?", "?", IN_PROGRESS, "?", "1", leaseEnd, now, now),
                        List.of(scope, key));
        this.takeOverSql = "UPDATE " + t + " SET " + token + " = ?, " + attempts + " = " + attempts + " + 1, "
                + lockedUntil + " = " + leaseEnd + ", " + updatedAt + " = " + now + " WHERE " + byKey + " AND "
                + fingerprint + " = ? AND " + state + " = " + IN_PROGRESS + " AND " + lockedUntil + " < " + now;
        this.readSql =
                d.ownTables().lockingSelect(t, String.join(", ", fingerprint, state, token, attempts, response), byKey);
        this.completeSql = "UPDATE " + t + " SET " + state + " = '" + COMPLETED + "', " + response + " = ?, "
                + lockedUntil + " = NULL, " + updatedAt + " = " + now + " WHERE " + owned;
        this.failSql = "DELETE FROM " + t + " WHERE " + owned;
        this.deleteBatch = Math.min(500, d.traits().maxBatchSize());
        this.deleteExpiredSql = d.ownTables()
                .deleteBatch(
                        t,
                        List.of(scope, key),
                        updatedAt + " < " + d.sql().plusMillis(now, -retention.toMillis()) + " AND (" + state + " = '"
                                + COMPLETED + "' OR " + lockedUntil + " < " + now + ")",
                        deleteBatch);
    }

    /** Inserts a started key unless one exists; true if inserted. */
    public boolean insert(Connection c, String scope, String key, String fingerprint, long fence) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(insertSql)) {
            ps.setString(1, scope);
            ps.setString(2, key);
            ps.setString(3, fingerprint);
            ps.setLong(4, fence);
            return ps.executeUpdate() == 1;
        } catch (SQLException e) {
            if (dialect.diagnostics().classify(e).kind() == SqlError.Kind.UNIQUE_VIOLATION) {
                return false; // the dialect's insert-if-absent reports a present key as a unique violation
            }
            throw e;
        }
    }

    /** Takes over a started key of the same fingerprint whose lease expired (if the read then finds our fence). */
    public void takeOver(Connection c, String scope, String key, String fingerprint, long fence) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(takeOverSql)) {
            ps.setLong(1, fence);
            ps.setString(2, scope);
            ps.setString(3, key);
            ps.setString(4, fingerprint);
            ps.executeUpdate();
        }
    }

    /** Reads a key with a lock; null if absent. */
    public Stored read(Connection c, String scope, String key) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(readSql)) {
            ps.setString(1, scope);
            ps.setString(2, key);
            try (ResultSet rs = ps.executeQuery()) {
                if (!rs.next()) {
                    return null;
                }
                return new Stored(
                        rs.getString(1),
                        COMPLETED.equals(rs.getString(2)),
                        rs.getLong(3),
                        rs.getInt(4),
                        rs.getBytes(5));
            }
        }
    }

    /** Completes the key owned by {@code fence}; the update count. */
    public int complete(Connection c, String scope, String key, long fence, byte[] response) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(completeSql)) {
            ps.setBytes(1, response);
            ps.setString(2, scope);
            ps.setString(3, key);
            ps.setLong(4, fence);
            return ps.executeUpdate();
        }
    }

    /** Deletes the key owned by {@code fence}; the update count. */
    public int fail(Connection c, String scope, String key, long fence) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(failSql)) {
            ps.setString(1, scope);
            ps.setString(2, key);
            ps.setLong(3, fence);
            return ps.executeUpdate();
        }
    }

    /** Deletes expired keys in autocommit batches until a batch comes back short; the rows deleted. */
    public long deleteExpired(Engine engine, String operation) {
        return Drain.drain(deleteBatch, () -> engine.tx()
                        .autocommit(operation, c -> Drain.deleteAtReadCommitted(c, deleteExpiredSql)))
                .rows();
    }

    /** The SQL in order: insert-if-absent, take over, locking read, complete, fail, one batch of the cleanup. */
    public List<String> sql() {
        return List.of(insertSql, takeOverSql, readSql, completeSql, failSql, deleteExpiredSql);
    }
}
