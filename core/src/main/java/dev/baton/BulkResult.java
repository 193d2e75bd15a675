package dev.baton;

/**
 * What a bulk transition did.
 *
 * @param rows rows moved to the target state; a lower bound when {@code countInDoubt}
 * @param batches batches (transactions, or statements on a caller's connection) that ran
 * @param countInDoubt true when the connection was lost after a batch was sent: the batch may have committed, it was
 *     run again (the guard keeps a committed row from moving twice), and the rows it moved before the reply was lost
 *     are missing from {@code rows}. Every eligible row was still handled; only the count is uncertain.
 */
public record BulkResult(long rows, int batches, boolean countInDoubt) {

    /** A result whose count is exact. */
    public BulkResult(long rows, int batches) {
        this(rows, batches, false);
    }
}
