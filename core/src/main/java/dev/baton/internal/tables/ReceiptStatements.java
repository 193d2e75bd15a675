package dev.baton.internal.tables;

import dev.baton.internal.values.Identifiers;
import dev.baton.spi.Dialect;
import dev.baton.spi.SqlError;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;

/**
 * The statements of a transaction-receipt table: write a receipt in the current transaction (unless one with the same
 * value is there), probe for the table, and batches of the cleanup. Immutable and thread-safe.
 */
public final class ReceiptStatements {
    private final Dialect dialect;
    private final String insertSql;
    private final String probeSql;
    private final String quotedTable;
    private final String quotedReceipt;
    private final String quotedCreatedAt;
    private final int deleteBatch;

    /** Renders the statements for {@code table}. */
    public ReceiptStatements(Dialect d, String table) {
        this.dialect = d;
        this.quotedTable = Identifiers.quoteTable(d, table);
        this.quotedReceipt = d.sql().quote("receipt");
        this.quotedCreatedAt = d.sql().quote("created_at");
        this.insertSql = d.ownTables()
                .insertIfAbsent(
                        quotedTable,
                        List.of(quotedReceipt, quotedCreatedAt),
                        List.of("?", d.sql().currentTimestamp()),
                        List.of(quotedReceipt));
        this.probeSql = "SELECT " + quotedReceipt + " FROM " + quotedTable + " WHERE 1 = 0";
        this.deleteBatch = Math.min(1000, d.traits().maxBatchSize());
    }

    /**
     * Writes {@code receipt} in the transaction of {@code c}; false when a row with that receipt is there already
     * (committed by an earlier transaction). Waits for a transaction that wrote the same receipt and has not ended.
     */
    public boolean insert(Connection c, long receipt) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(insertSql)) {
            ps.setLong(1, receipt);
            return ps.executeUpdate() == 1;
        } catch (SQLException e) {
            if (dialect.diagnostics().classify(e).kind() != SqlError.Kind.UNIQUE_VIOLATION) {
                throw e;
            }
            return false; // the dialect's insert-if-absent reports a present row as a unique violation
        }
    }

    /** Runs a query that touches the table and reads nothing: fails when the table is not there. */
    public void probe(Connection c) throws SQLException {
        try (Statement s = c.createStatement()) {
            s.executeQuery(probeSql).close();
        }
    }

    /** One batch of deleting receipts older than {@code age} (database clock). */
    public String deleteSql(Duration age) {
        return dialect.ownTables()
                .deleteBatch(
                        quotedTable,
                        List.of(quotedReceipt),
                        quotedCreatedAt + " < "
                                + dialect.sql().plusMillis(dialect.sql().currentTimestamp(), -age.toMillis()),
                        deleteBatch);
    }

    /** The most rows one {@link #deleteSql} batch deletes. */
    public int deleteBatch() {
        return deleteBatch;
    }

    /** The insert statement. */
    public String insertSql() {
        return insertSql;
    }
}
