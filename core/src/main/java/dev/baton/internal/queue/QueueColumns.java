package dev.baton.internal.queue;

/**
 * Where a claim queue keeps its rows: the table and the columns Baton reads and writes, as configured, unquoted.
 *
 * @param table the host table ({@code table} or {@code schema.table})
 * @param id the id column
 * @param state the state column
 * @param lease the column of the lease's end
 * @param token the claim token's column
 * @param attempts the attempts column
 * @param nextAttempt the column of the earliest next attempt
 * @param error the last error's column
 * @param age the column whose oldest eligible value health reports, or null
 */
public record QueueColumns(
        String table,
        String id,
        String state,
        String lease,
        String token,
        String attempts,
        String nextAttempt,
        String error,
        String age) {}
