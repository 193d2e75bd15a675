package dev.baton;

/**
 * What Baton asks of its own commits of transitions before it answers ({@link Baton.Builder#commitDurability}): whether
 * the commit must already be on a standby that a failover would promote. On a failover to an asynchronous standby, a
 * commit that only the old primary had is lost with it, although the caller was told it applied (and may have
 * acknowledged a payment callback).
 *
 * <p>After the commit, on the connection that committed, Baton reads the server's log position and waits until a
 * standby has flushed it, as {@link SendDurability} does for SENDING marks (PostgreSQL: {@code
 * pg_current_wal_insert_lsn()}, then {@code pg_stat_replication.flush_lsn}, readable by a superuser or with {@code
 * pg_read_all_stats}; MariaDB: semi-synchronous replication ON, or a Galera node's cluster). Under synchronous
 * replication it passes at once. Where the database reports no replication progress (MySQL, SQL Server, a standalone
 * MariaDB or PostgreSQL), a commit is never known durable.
 */
public enum CommitDurability {
    /** The default: no check, no extra round trip. */
    OFF,
    /** Waits as {@link #REQUIRE} does; when no standby has the commit in time, logs a warning and answers as usual. */
    WARN,
    /**
     * Waits for a standby to have flushed the commit; when none has in time, a transition answers {@link
     * TransitionResult.InDoubt} (applied on the writer, not known durable: do not acknowledge) and {@link
     * Baton#inTransaction} throws {@link CommitNotDurableException}.
     */
    REQUIRE
}
