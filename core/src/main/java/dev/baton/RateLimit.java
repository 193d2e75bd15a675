package dev.baton;

import dev.baton.internal.values.Identifiers;
import java.util.Objects;

/**
 * At most {@code rowsPerSecond} rows claimed per second from one queue, across all threads and processes, with bursts
 * of up to {@code burst} rows after a quiet time: a token bucket held by the database ({@link
 * ClaimQueueBuilder#rateLimit(RateLimit)}) in the row of the queue's name in {@code table}. Immutable.
 *
 * <pre>{@code
 * RateLimit.perSecond(50, 10)                       // 50 rows/s, bursts of 10, table baton_rate_limits
 * RateLimit.perSecond(50, 10).table("ops.limits")   // the same, its buckets in ops.limits
 * }</pre>
 *
 * @param rowsPerSecond the rate, 1 to {@value #MAX_RATE}
 * @param burst the most rows claimed at once after a quiet time (the bucket's size), 1 to {@value #MAX_BURST}
 * @param table the table of the buckets ({@code table} or {@code schema.table}; default {@value #DEFAULT_TABLE})
 */
public record RateLimit(int rowsPerSecond, int burst, String table) {
    /** The default table of the buckets, as the dialects' {@code V9__baton_rate_limits.sql} names it. */
    public static final String DEFAULT_TABLE = "baton_rate_limits";
    /** The highest rate: 100,000 rows per second. */
    public static final int MAX_RATE = 100_000;
    /** The largest burst: 100,000 rows. */
    public static final int MAX_BURST = 100_000;

    /**
     * Validates the limit.
     *
     * @throws ConfigurationException if the rate or the burst is out of range
     * @throws InvalidIdentifierException if the table is not a plain identifier
     */
    public RateLimit {
        if (rowsPerSecond < 1 || rowsPerSecond > MAX_RATE) {
            throw new ConfigurationException(
                    "rateLimit rowsPerSecond must be 1.." + MAX_RATE + ", was " + rowsPerSecond);
        }
        if (burst < 1 || burst > MAX_BURST) {
            throw new ConfigurationException("rateLimit burst must be 1.." + MAX_BURST + ", was " + burst);
        }
        Identifiers.splitTable(Objects.requireNonNull(table, "table")); // validates
    }

    /**
     * {@code rowsPerSecond} rows per second in bursts of up to {@code burst}, the buckets in {@value #DEFAULT_TABLE}.
     *
     * @throws ConfigurationException if the rate or the burst is out of range
     */
    public static RateLimit perSecond(int rowsPerSecond, int burst) {
        return new RateLimit(rowsPerSecond, burst, DEFAULT_TABLE);
    }

    /**
     * The same limit with its buckets in {@code table} (create it with {@link OwnTables#createRateLimitsTable}).
     *
     * @throws InvalidIdentifierException if the table is not a plain identifier
     */
    public RateLimit table(String table) {
        return new RateLimit(rowsPerSecond, burst, table);
    }
}
