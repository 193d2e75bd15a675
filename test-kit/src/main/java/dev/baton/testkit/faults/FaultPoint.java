package dev.baton.testkit.faults;

/** What a {@link Fault} does to the step it hits. */
public enum FaultPoint {
    /**
     * Nothing reaches the server: the physical connection is closed and the call throws {@link java.sql.SQLException}
     * with SQLState {@code 08006}, as when the network fails before the request is sent. An open transaction on that
     * connection is rolled back by the server.
     */
    FAIL_BEFORE,
    /**
     * The statement or commit runs for real on the server, then the physical connection is closed and the call throws
     * SQLState {@code 08006}: what a TCP reset after the server's commit looks like. With autocommit on, a lost reply
     * on a write means the write is committed and the caller does not know it; inside a transaction, the server rolls
     * the transaction back when the connection closes (so only a lost reply on the commit leaves a committed effect).
     */
    LOST_REPLY,
    /**
     * The session is terminated server-side through a separate admin connection ({@code pg_terminate_backend(pid)}
     * on PostgreSQL, {@code KILL CONNECTION id} on MariaDB and MySQL, {@code KILL spid} on SQL Server), the harness
     * waits until the server no longer lists it, and then the step is sent: the driver reports its own error, as
     * after a failover or an administrator's kill in the middle of a transaction.
     */
    KILL_BACKEND,
    /** The step waits {@link Fault#delayMillis()} and then runs normally. */
    DELAY
}
