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
 * The statements of an inbox table: insert-if-absent of a delivery with its receipt, read of the receipt, and batches
 * of the cleanup. Immutable and thread-safe.
 */
public final class InboxStatements {
    private final Dialect dialect;
    private final String insertSql;
    private final String readSql;
    private final String quotedTable;
    private final String quotedReceivedAt;
    private final List<String> keyColumns;
    private final int deleteBatch;

    /** Renders the statements for {@code table}. */
    public InboxStatements(Dialect d, String table) {
        this.dialect = d;
        this.quotedTable = Identifiers.quoteTable(d, table);
        String source = d.sql().quote("source");
        String messageId = d.sql().quote("message_id");
        String receipt = d.sql().quote("receipt");
        this.quotedReceivedAt = d.sql().quote("received_at");
        this.keyColumns = List.of(source, messageId);
        this.insertSql = d.ownTables()
                .insertIfAbsent(
                        quotedTable,
                        List.of(source, messageId, receipt, quotedReceivedAt),
                        List.of("?", "?", "?", d.sql().currentTimestamp()),
                        keyColumns);
        this.readSql =
                "SELECT " + receipt + " FROM " + quotedTable + " WHERE " + source + " = ? AND " + messageId + " = ?";
        this.deleteBatch = Math.min(500, d.traits().maxBatchSize());
    }

    /** Records the delivery unless it is recorded; true if this call recorded it. */
    public boolean insert(Connection c, String source, String messageId, long receipt) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(insertSql)) {
            ps.setString(1, source);
            ps.setString(2, messageId);
            ps.setLong(3, receipt);
            return ps.executeUpdate() == 1;
        } catch (SQLException e) {
            if (dialect.diagnostics().classify(e).kind() != SqlError.Kind.UNIQUE_VIOLATION) {
                throw e;
            }
            return false; // the dialect's insert-if-absent reports a present row as a unique violation
        }
    }

    /** True if the recorded delivery carries {@code receipt}. */
    public boolean hasReceipt(Connection c, String source, String messageId, long receipt) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(readSql)) {
            ps.setString(1, source);
            ps.setString(2, messageId);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() && rs.getLong(1) == receipt;
            }
        }
    }

    /** One batch of deleting deliveries older than {@code age} (database clock). */
    public String deleteSql(Duration age) {
        return dialect.ownTables()
                .deleteBatch(
                        quotedTable,
                        keyColumns,
                        quotedReceivedAt + " < "
                                + dialect.sql().plusMillis(dialect.sql().currentTimestamp(), -age.toMillis()),
                        deleteBatch);
    }

    /** Runs {@code deleteSql} in autocommit batches until one comes back short; the rows deleted. */
    public long delete(Engine engine, String operation, String deleteSql) {
        return Drain.drain(deleteBatch, () -> engine.tx()
                        .autocommit(operation, c -> Drain.deleteAtReadCommitted(c, deleteSql)))
                .rows();
    }

    /** The insert and read statements. */
    public List<String> sql() {
        return List.of(insertSql, readSql);
    }
}
