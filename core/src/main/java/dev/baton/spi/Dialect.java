package dev.baton.spi;

import java.sql.SQLException;

/**
 * What Baton needs to know about one database family: its capabilities and the SQL fragments and statements that
 * differ between vendors. The engine never switches on a database name; it asks the dialect.
 *
 * <p>Dialect modules register an implementation through {@link java.util.ServiceLoader}. Implementations are
 * stateless and thread-safe.
 */
public interface Dialect {

    /** A short name for messages, e.g. {@code postgres}. */
    String name();

    /**
     * True when this dialect serves the database described. Too-old versions must return false here, or throw
     * {@link dev.baton.UnsupportedDatabaseException} naming the minimum, rather than run with wrong claim semantics.
     */
    boolean supports(DatabaseInfo info);

    /** The longest identifier the database accepts. */
    int maxIdentifierLength();

    /** Quotes an identifier that Baton has already validated as {@code ^[A-Za-z_][A-Za-z0-9_]*$}. */
    String quote(String identifier);

    /** The database clock as an SQL expression, e.g. {@code CURRENT_TIMESTAMP(6)}. */
    String currentTimestamp();

    /** An SQL expression for {@code timestamp + millis} (millis may be negative), computed by the database. */
    String plusMillis(String timestampSql, long millis);

    /**
     * The guard {@code column IN (codes)} on a state column. The default is a plain {@code IN}; a database whose
     * default collation compares strings loosely (MySQL and MariaDB ignore case and trailing spaces) must make the
     * match exact, so that a stored {@code 'PAID '} or {@code 'paid'} never passes for {@code 'PAID'}.
     *
     * @param quotedColumn the quoted state column
     * @param codes the stored codes ({@code Long} or {@code String}), at least one
     */
    default SqlFragment stateIn(String quotedColumn, java.util.List<Object> codes) {
        return SqlFragment.inList(quotedColumn, codes);
    }

    /** Classifies a driver exception. */
    SqlError classify(SQLException e);

    /**
     * True when a failed statement aborts the whole transaction (PostgreSQL, 25P02), so a caller's transaction must
     * be protected by a savepoint around a statement that may hit a unique constraint.
     */
    default boolean failedStatementAbortsTransaction() {
        return false;
    }

    /**
     * True when a {@link ClaimStatement} needs an explicit READ COMMITTED transaction around it (it is several
     * statements, or the isolation must be forced); false when it is one atomic statement that may run in autocommit
     * mode, saving the round trip of a separate COMMIT.
     */
    default boolean claimNeedsTransaction() {
        return true;
    }

    /** The largest batch a claim may take (SQL Server: 500, below lock escalation). */
    default int maxBatchSize() {
        return 1000;
    }

    /** Renders a batch claim once; the engine caches and reuses the result. */
    ClaimStatement claimStatement(ClaimSpec spec);

    /** The column type to suggest in DDL hints. */
    String columnType(ColumnType type);

    /** DDL that adds a column. */
    default String addColumn(String quotedTable, String quotedColumn, String typeAndConstraints) {
        return "ALTER TABLE " + quotedTable + " ADD COLUMN " + quotedColumn + " " + typeAndConstraints;
    }

    /** Logical column types used in DDL hints. */
    enum ColumnType {
        /** 64-bit integer. */
        BIGINT,
        /** 32-bit integer. */
        INT,
        /** Short text, up to 64 characters. */
        SHORT_TEXT,
        /** Text up to 4000 characters. */
        TEXT,
        /** Timestamp with microseconds, in the database clock's zone. */
        TIMESTAMP
    }
}
