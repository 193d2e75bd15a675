package dev.baton.spi;

/**
 * What a database can do and how far: constant per dialect. Start from {@link #of(int)} and change what differs, e.g.
 * {@code DialectTraits.of(63).failedStatementAbortsTransaction(true).batchUpdateIsAtomic(true)}.
 *
 * @param maxIdentifierLength the longest identifier the database accepts
 * @param maxBatchSize the largest batch a {@link BatchUpdate} may take (default 1000; SQL Server: 500, below lock
 *     escalation)
 * @param failedStatementAbortsTransaction true when a failed statement aborts the whole transaction (PostgreSQL,
 *     25P02), so a caller's transaction must be protected by a savepoint around a statement that may hit a unique
 *     constraint (default false)
 * @param batchUpdateIsAtomic true when a {@link BatchUpdate} is one atomic statement that may run in autocommit mode,
 *     saving the round trip of a separate COMMIT; false (the default) when it needs an explicit READ COMMITTED
 *     transaction around it (it is several statements, or the isolation must be forced)
 * @param isolationPerTransaction true when {@code SET TRANSACTION ISOLATION LEVEL READ COMMITTED} as the first
 *     statement of a transaction sets the level of that transaction only (PostgreSQL): Baton's own transactions then
 *     send it instead of reading and setting the connection's level, which is session state a transaction-mode pooler
 *     (PgBouncer) does not keep; one statement more per transaction, no round trip to read the level (default false)
 */
public record DialectTraits(
        int maxIdentifierLength,
        int maxBatchSize,
        boolean failedStatementAbortsTransaction,
        boolean batchUpdateIsAtomic,
        boolean isolationPerTransaction) {

    /** Checks the limits. */
    public DialectTraits {
        if (maxIdentifierLength < 1) {
            throw new IllegalArgumentException("maxIdentifierLength must be positive, was " + maxIdentifierLength);
        }
        if (maxBatchSize < 1) {
            throw new IllegalArgumentException("maxBatchSize must be positive, was " + maxBatchSize);
        }
    }

    /** The defaults, for a database whose identifiers may be {@code maxIdentifierLength} characters long. */
    public static DialectTraits of(int maxIdentifierLength) {
        return new DialectTraits(maxIdentifierLength, 1000, false, false, false);
    }

    /** These traits with another {@link #maxBatchSize()}. */
    public DialectTraits maxBatchSize(int maxBatchSize) {
        return new DialectTraits(
                maxIdentifierLength,
                maxBatchSize,
                failedStatementAbortsTransaction,
                batchUpdateIsAtomic,
                isolationPerTransaction);
    }

    /** These traits with another {@link #failedStatementAbortsTransaction()}. */
    public DialectTraits failedStatementAbortsTransaction(boolean aborts) {
        return new DialectTraits(
                maxIdentifierLength, maxBatchSize, aborts, batchUpdateIsAtomic, isolationPerTransaction);
    }

    /** These traits with another {@link #batchUpdateIsAtomic()}. */
    public DialectTraits batchUpdateIsAtomic(boolean atomic) {
        return new DialectTraits(
                maxIdentifierLength, maxBatchSize, failedStatementAbortsTransaction, atomic, isolationPerTransaction);
    }

    /** These traits with another {@link #isolationPerTransaction()}. */
    public DialectTraits isolationPerTransaction(boolean perTransaction) {
        return new DialectTraits(
                maxIdentifierLength,
                maxBatchSize,
                failedStatementAbortsTransaction,
                batchUpdateIsAtomic,
                perTransaction);
    }
}
