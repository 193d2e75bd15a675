package dev.baton;

/**
 * What {@link ClaimQueue#markSending} asks of the SENDING mark before it returns, on a queue with a non-idempotent
 * sink ({@link ClaimQueueBuilder#sendDurability}): whether the mark must already be on a standby that a failover would
 * promote. A mark that only the primary has is lost with it on a failover to an asynchronous standby; the row is then
 * claimable again on the new primary and its irreversible call is made a second time.
 *
 * <p>The check reads the server's replication progress (PostgreSQL: {@code pg_current_wal_insert_lsn()} on the
 * connection that wrote the mark, then {@code pg_stat_replication.flush_lsn}, which the database user sees only as a
 * superuser or with {@code pg_read_all_stats}, e.g. through {@code pg_monitor}). Under synchronous replication it
 * passes at once. On a database whose dialect cannot read replication progress (MySQL, MariaDB and SQL Server
 * today), the mark is never known durable.
 */
public enum SendDurability {
    /** The default: no check; a failover to a standby that lacks the mark can make a send twice. */
    OFF,
    /** Waits for a standby as {@link #REQUIRE} does; when none has the mark in time, logs a warning and sends. */
    WARN,
    /**
     * Waits for a standby to have flushed the mark; when none has in time, {@link ClaimQueue#markSending} throws
     * {@link SendNotDurableException} and nothing is sent (a worker retries the row later, as an attempt).
     */
    REQUIRE
}
