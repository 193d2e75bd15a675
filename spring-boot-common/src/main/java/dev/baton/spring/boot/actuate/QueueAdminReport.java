package dev.baton.spring.boot.actuate;

import dev.baton.ClaimQueue;
import dev.baton.DeadRow;
import dev.baton.UnknownRow;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * One queue's dead letters and unknown sends as the {@code baton} endpoint shows them ({@code /actuator/baton/{queue}}):
 * the first {@value #PAGE} of each, lowest id first, and their counts up to {@value #COUNT_LIMIT}, read through the
 * queue's admin views ({@link ClaimQueue#deadLetters()}, {@link ClaimQueue#unknownSends()}), so the read is bounded
 * however many rows are dead. Row values are never shown (they may hold payloads); only ids, attempts and errors.
 *
 * @param queue the queue's name
 * @param deadCount rows in the dead state, counted up to {@value #COUNT_LIMIT}
 * @param deadCountIsAtLeast true when {@code deadCount} reached the limit: there may be more
 * @param dead the first dead rows
 * @param unknownCount rows in the unknown state, counted up to {@value #COUNT_LIMIT}
 * @param unknownCountIsAtLeast true when {@code unknownCount} reached the limit
 * @param unknown the first unknown rows
 */
public record QueueAdminReport(
        String queue,
        long deadCount,
        boolean deadCountIsAtLeast,
        List<Dead> dead,
        long unknownCount,
        boolean unknownCountIsAtLeast,
        List<Unknown> unknown) {
    /** Rows listed per state. */
    public static final int PAGE = 50;
    /** Where the counts stop. */
    public static final int COUNT_LIMIT = 10_000;

    /**
     * A dead row.
     *
     * @param id the id, as text
     * @param attempts claims used
     * @param lastError the reason kept, or null
     * @param mayHaveBeenSent true when a requeue would send it again
     */
    public record Dead(String id, int attempts, @Nullable String lastError, boolean mayHaveBeenSent) {}

    /**
     * An unknown send.
     *
     * @param id the id, as text
     * @param attempts claims used
     * @param lastError the error column, or null
     * @param reconcilableAt ISO-8601 end of its quarantine by the database clock, or null
     * @param ready true when the quarantine passed
     */
    public record Unknown(
            String id, int attempts, @Nullable String lastError, @Nullable String reconcilableAt, boolean ready) {}

    static QueueAdminReport of(ClaimQueue<?> q) {
        long dead = q.deadLetters().count(COUNT_LIMIT);
        long unknown = q.unknownSends().count(COUNT_LIMIT);
        List<Dead> deadRows =
                q.deadLetters().list(PAGE).stream().map(QueueAdminReport::dead).toList();
        List<Unknown> unknownRows = q.unknownSends().list(PAGE).stream()
                .map(QueueAdminReport::unknown)
                .toList();
        return new QueueAdminReport(
                q.name(), dead, dead >= COUNT_LIMIT, deadRows, unknown, unknown >= COUNT_LIMIT, unknownRows);
    }

    private static Dead dead(DeadRow r) {
        return new Dead(String.valueOf(r.id()), r.attempts(), r.lastError(), r.mayHaveBeenSent());
    }

    private static Unknown unknown(UnknownRow r) {
        return new Unknown(
                String.valueOf(r.id()),
                r.attempts(),
                r.lastError(),
                r.reconcilableAt() == null ? null : r.reconcilableAt().toString(),
                r.ready());
    }
}
