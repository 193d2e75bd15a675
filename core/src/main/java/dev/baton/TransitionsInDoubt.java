package dev.baton;

import java.util.List;

/**
 * What the failover audit ({@link Baton.Builder#failoverAudit}) found on the new writer after the writer's epoch
 * changed (PostgreSQL: its timeline, after a promotion): of the transitions of one table that this {@link Baton}
 * applied and acknowledged within the audit's window, those whose row the new writer holds in one of the transition's
 * source states again. Their commits were acknowledged by the old writer and lost with it (a failover to an
 * asynchronous standby that lacked them): the transitions are in doubt, and whoever made them must apply them again
 * (a callback's sender retries it) or repair the rows. Reported to {@link BatonListener#onTransitionsInDoubt}, once per
 * table with recorded transitions per epoch change, on the audit's thread.
 *
 * <p>Not seen: transitions applied by other processes, or by a process that ended with the old writer; transitions
 * applied with {@link Transition#apply(java.sql.Connection)} on the caller's connection; a row that another process
 * moved back to a source state after this one's transition is reported too (it looks lost).
 *
 * @param table the state table (as configured)
 * @param from the epoch before (e.g. {@code timeline 1})
 * @param to the epoch now
 * @param recorded transitions of this table applied within the window before the change was seen: those the audit
 *     looked up
 * @param lost rows found back in a source state of their recorded transition: the acknowledged transitions lost with
 *     the old writer
 * @param lostIds the ids of those rows as the database returned them, at most {@link #MAX_IDS} (all of them when
 *     {@code lost} is not larger)
 * @param untracked transitions not kept because more than {@link #MAX_TRACKED} of this table were applied within the
 *     window (0 normally): a lost one among them is not counted
 */
public record TransitionsInDoubt(
        String table, String from, String to, int recorded, long lost, List<Object> lostIds, long untracked) {

    /** The most transitions kept per table and {@link Baton} (the oldest go first; {@link #untracked} counts them). */
    public static final int MAX_TRACKED = 200_000;

    /** The most ids {@link #lostIds} carries. */
    public static final int MAX_IDS = 10_000;

    /** Copies {@code lostIds}. */
    public TransitionsInDoubt {
        lostIds = List.copyOf(lostIds);
    }
}
