package dev.baton.internal.tables;

import dev.baton.BulkResult;
import dev.baton.DataAccessException;
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
import java.util.OptionalLong;

/**
 * The statements of an outbox table that are not its claim queue's: the insert (plain, or insert-if-absent for a
 * message with a dedup key) with the call's receipt, the read of a receipt's row, and batches of the purge of
 * delivered messages. Immutable and thread-safe.
 */
public final class OutboxStatements {
    private static final String ID = "id";

    private final Dialect dialect;
    private final String table;
    private final String insertSql;
    private final String insertIfAbsentSql;
    private final String receiptSql;

    /** Renders the inserts for {@code table}. */
    public OutboxStatements(Dialect d, String table) {
        this.dialect = d;
        this.table = table;
        String q = Identifiers.quoteTable(d, table);
        List<String> columns = List.of(
                d.sql().quote("topic"),
                d.sql().quote("msg_key"),
                d.sql().quote("payload"),
                d.sql().quote("headers"),
                d.sql().quote("dedup_key"),
                d.sql().quote("status"),
                d.sql().quote("receipt"),
                d.sql().quote("attempts"),
                d.sql().quote("created_at"));
        List<String> values =
                List.of("?", "?", "?", "?", "?", "?", "?", "0", d.sql().currentTimestamp());
        this.insertSql =
                "INSERT INTO " + q + " (" + String.join(", ", columns) + ") VALUES (" + String.join(", ", values) + ")";
        this.insertIfAbsentSql =
                d.ownTables().insertIfAbsent(q, columns, values, List.of(d.sql().quote("dedup_key")));
        this.receiptSql = "SELECT " + d.sql().quote(ID) + " FROM " + q + " WHERE "
                + d.sql().quote("receipt") + " = ?";
    }

    /** The plain insert, the insert-if-absent and the read of a receipt. */
    public List<String> sql() {
        return List.of(insertSql, insertIfAbsentSql, receiptSql);
    }

    /** True when the dialect renders no insert-if-absent (a duplicate is then reported by a unique violation). */
    public boolean noInsertIfAbsent() {
        return insertIfAbsentSql.equals(insertSql);
    }

    /**
     * Inserts a message in {@code status} with {@code receipt}; its generated id, or empty when a message with the
     * same dedup key exists.
     */
    public OptionalLong insert(
            Connection c,
            String topic,
            String key,
            byte[] payload,
            String headers,
            String dedupKey,
            int status,
            long receipt)
            throws SQLException {
        String sql = dedupKey == null ? insertSql : insertIfAbsentSql;
        try (PreparedStatement ps = c.prepareStatement(sql, new String[] {ID})) {
            ps.setString(1, topic);
            ps.setString(2, key);
            ps.setBytes(3, payload);
            ps.setString(4, headers);
            ps.setString(5, dedupKey);
            ps.setInt(6, status);
            ps.setLong(7, receipt);
            int n;
            try {
                n = ps.executeUpdate();
            } catch (SQLException e) {
                if (dedupKey != null && dialect.diagnostics().classify(e).kind() == SqlError.Kind.UNIQUE_VIOLATION) {
                    return OptionalLong.empty();
                }
                throw e;
            }
            if (n == 0) {
                return OptionalLong.empty();
            }
            try (ResultSet keys = ps.getGeneratedKeys()) {
                if (!keys.next()) {
                    throw new DataAccessException("outbox " + table + ": the driver returned no generated id");
                }
                return OptionalLong.of(keys.getLong(1));
            }
        }
    }

    /** The id of the message stored with {@code receipt}, or empty when there is none. */
    public OptionalLong idOfReceipt(Connection c, long receipt) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(receiptSql)) {
            ps.setLong(1, receipt);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() ? OptionalLong.of(rs.getLong(1)) : OptionalLong.empty();
            }
        }
    }

    /**
     * Deletes messages in {@code status} created more than {@code age} ago (database clock), {@code batch} rows per
     * statement, each in its own transaction, until none is left: the rows deleted, a lower bound when a batch lost
     * its reply (it may have committed; its retry deletes what is left and cannot count what the lost one did).
     */
    public BulkResult purge(Engine engine, int status, Duration age, int batch) {
        Dialect d = dialect;
        String where =
                d.sql().quote("status") + " = " + status + " AND " + d.sql().quote("created_at") + " < "
                        + d.sql().plusMillis(d.sql().currentTimestamp(), -age.toMillis());
        String sql = d.ownTables()
                .deleteBatch(Identifiers.quoteTable(d, table), List.of(d.sql().quote(ID)), where, batch);
        Drain.Drained drained = Drain.drainReporting(batch, () -> engine.tx()
                .transactionReporting("purge outbox " + table, c -> Drain.update(c, sql, List.of())));
        return new BulkResult(drained.rows(), drained.batches(), drained.countInDoubt());
    }
}
