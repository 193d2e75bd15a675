package dev.baton;

/**
 * A claim found that another server had become the writer since this process last claimed from the queue (the
 * writer's epoch changed: PostgreSQL's timeline after a promotion), and what Baton did about the sends it may have lost
 * ({@link BatonListener#onEpochChange}).
 *
 * <p>A failover to a standby that lacked the last commits of the old writer loses them: SENDING marks, completions.
 * A row whose mark is gone is claimable again on the new writer, and a second claim would make its irreversible call a
 * second time. Baton keeps, per queue (its table and name) and data source in the process, shared by every {@link
 * ClaimQueue} object built for the queue, the SENDING marks it committed within the last {@link #WINDOW} under {@link
 * SendDurability#OFF} or after a {@link SendDurability#WARN} wait that ran out; under {@code OFF} a mark is known
 * durable when the claims' reads of the writer ({@link dev.baton.spi.Diagnostics#writer}) found synchronous commits
 * from before it was sent until it returned. A mark
 * is dropped when the process itself puts the row back in the claimable state afterwards (a retry or release of the
 * claim, {@link UnknownSends#resolveNotSent}; not inside a caller's transaction): the row is due again by a verdict
 * that nothing was sent. When the epoch changes, the first claim of the queue in the process (also one in a caller's
 * transaction) looks up those rows on the new writer before it claims: those in the claimable or processing state lost
 * their mark with the old writer, and go to the unknown state, for reconciliation after the usual quarantine, never
 * straight back to a claim.
 *
 * <p>The record is in the memory of the process that made the marks. So that another process of the queue does not
 * claim those rows before their owner has moved them, a process that sees a new writer claims nothing from the queue
 * for {@link #HOLD} (unless the queue's policy is {@link SendDurability#REQUIRE}, under which no mark can be lost, or
 * the process's last read of the old writer found synchronous commits and every mark it kept was known durable, none
 * lost and none dropped):
 * live processes reach the new writer within that, and each moves its own lost marks first. That assumes each of them
 * claims at least every half of {@link #HOLD}: a {@link Worker} refuses to start with a longer idle poll on such a
 * queue, and a caller that claims by itself must claim as often. A worker process that ends with the old writer, or one
 * that reaches the new writer more than {@link #HOLD} after another, is not covered.
 * Only {@link SendDurability#REQUIRE} rules out the double send itself.
 *
 * @param queue the queue's name
 * @param from the epoch before (e.g. {@code timeline 1})
 * @param to the epoch now
 * @param marksNotKnownDurable SENDING marks this process committed within the {@link #WINDOW} before the change that
 *     no standby was known to have, less those whose rows it put back in the claimable state since: the sends a
 *     failover could have made in doubt
 * @param lostMarks rows of the marks kept (known durable or not) that the new writer had without their mark
 *     (claimable or processing): moved to the unknown state, the sends in doubt that this process found
 * @param untracked marks not kept because more than {@link #MAX_TRACKED} were made within the window (0 normally): a
 *     row among them that lost its mark is claimable again
 */
public record EpochChange(
        String queue, String from, String to, int marksNotKnownDurable, long lostMarks, long untracked) {

    /** How long a SENDING mark that is not known durable is kept: the replication lag a failover may lose. */
    public static final java.time.Duration WINDOW = java.time.Duration.ofSeconds(60);

    /**
     * How long a process claims nothing from a queue with a non-idempotent sink after it first sees a new writer
     * (policies {@link SendDurability#OFF} and {@link SendDurability#WARN}): time for the queue's other live processes
     * to reach the new writer and move their own lost marks (a Worker that is idle polls at least every 5 s by default,
     * and its pool reconnects within seconds).
     */
    public static final java.time.Duration HOLD = java.time.Duration.ofSeconds(10);

    /**
     * The most marks kept per queue and data source in the process (the oldest go first; {@link #untracked} counts
     * them).
     */
    public static final int MAX_TRACKED = 200_000;
}
