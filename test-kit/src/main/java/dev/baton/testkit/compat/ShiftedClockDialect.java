package dev.baton.testkit.compat;

import dev.baton.spi.ClaimSpec;
import dev.baton.spi.ClaimStatement;
import dev.baton.spi.DatabaseInfo;
import dev.baton.spi.Dialect;
import dev.baton.spi.SqlError;
import dev.baton.spi.SqlFragment;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;
import java.util.Optional;

/**
 * A test-only dialect whose database clock runs {@code offsetMillis} ahead of the real one: every lease, due time
 * and expiry check of a Baton built on it is computed from {@code now + offset}, by the database. Advancing time is
 * building a new instance with a larger offset (SQL is rendered per Baton instance). The JVM clock is never read.
 */
public final class ShiftedClockDialect implements Dialect {
    private final Dialect delegate;
    private final long offsetMillis;

    /** Wraps {@code delegate}, shifting its clock by {@code offsetMillis}. */
    public ShiftedClockDialect(Dialect delegate, long offsetMillis) {
        this.delegate = delegate;
        this.offsetMillis = offsetMillis;
    }

    /** The shift. */
    public long offsetMillis() {
        return offsetMillis;
    }

    @Override
    public String name() {
        return delegate.name() + "+" + offsetMillis + "ms";
    }

    @Override
    public boolean supports(DatabaseInfo info) {
        return false; // never chosen by detection
    }

    @Override
    public int maxIdentifierLength() {
        return delegate.maxIdentifierLength();
    }

    @Override
    public String quote(String identifier) {
        return delegate.quote(identifier);
    }

    @Override
    public String currentTimestamp() {
        return delegate.plusMillis(delegate.currentTimestamp(), offsetMillis);
    }

    @Override
    public String plusMillis(String timestampSql, long millis) {
        return delegate.plusMillis(timestampSql, millis);
    }

    @Override
    public String plusMillisParam(String timestampSql) {
        return delegate.plusMillisParam(timestampSql);
    }

    @Override
    public SqlFragment stateIn(String quotedColumn, List<Object> codes) {
        return delegate.stateIn(quotedColumn, codes);
    }

    @Override
    public SqlError classify(SQLException e) {
        return delegate.classify(e);
    }

    @Override
    public boolean failedStatementAbortsTransaction() {
        return delegate.failedStatementAbortsTransaction();
    }

    @Override
    public boolean claimNeedsTransaction() {
        return delegate.claimNeedsTransaction();
    }

    @Override
    public int maxBatchSize() {
        return delegate.maxBatchSize();
    }

    @Override
    public ClaimStatement claimStatement(ClaimSpec spec) {
        return delegate.claimStatement(spec);
    }

    @Override
    public Optional<String> claimPlanProblem(Connection connection, ClaimSpec spec, Object[] args) throws SQLException {
        return delegate.claimPlanProblem(connection, spec, args);
    }

    @Override
    public List<String> idempotencyKeysDdl(String quotedTable, String quotedIndex) {
        return delegate.idempotencyKeysDdl(quotedTable, quotedIndex);
    }

    @Override
    public List<String> inboxDdl(String quotedTable, String quotedIndex) {
        return delegate.inboxDdl(quotedTable, quotedIndex);
    }

    @Override
    public List<String> outboxDdl(String quotedTable, String bareTable) {
        return delegate.outboxDdl(quotedTable, bareTable);
    }

    @Override
    public String insertIfAbsent(
            String quotedTable, List<String> quotedColumns, List<String> values, List<String> quotedKeyColumns) {
        return delegate.insertIfAbsent(quotedTable, quotedColumns, values, quotedKeyColumns);
    }

    @Override
    public String lockingSelect(String quotedTable, String columns, String where) {
        return delegate.lockingSelect(quotedTable, columns, where);
    }

    @Override
    public String deleteBatch(String quotedTable, List<String> quotedKeyColumns, String where, int limit) {
        return delegate.deleteBatch(quotedTable, quotedKeyColumns, where, limit);
    }

    @Override
    public List<String> storageProblems(javax.sql.DataSource dataSource, long largestValueBytes) throws SQLException {
        return delegate.storageProblems(dataSource, largestValueBytes);
    }

    @Override
    public String columnType(ColumnType type) {
        return delegate.columnType(type);
    }

    @Override
    public String addColumn(String quotedTable, String quotedColumn, String typeAndConstraints) {
        return delegate.addColumn(quotedTable, quotedColumn, typeAndConstraints);
    }
}
