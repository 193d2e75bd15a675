package dev.baton;

/**
 * What a bulk transition did.
 *
 * @param rows rows moved to the target state
 * @param batches batches (transactions, or statements on a caller's connection) that ran
 */
public record BulkResult(long rows, int batches) {}
