package dev.baton.internal.queue;

import dev.baton.EpochChange;
import dev.baton.SendDurability;
import dev.baton.internal.Engine;
import dev.baton.spi.Rows;
import dev.baton.spi.SqlError;
import dev.baton.spi.SqlFragment;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Contract item 4 of issue 24 for a queue with a non-idempotent sink: reads the writer's epoch ({@link
 * dev.baton.spi.Diagnostics#epoch}) on the claim's connection before each claim, and keeps the SENDING marks this
 * process committed within {@link EpochChange#WINDOW} that were not known durable on a standby. When the epoch
 * changes, the rows of those marks that the new writer holds in the claimable or processing state (their mark was
 * lost with the old writer) move to the unknown state, with the quarantine an expired send gets, before the claim
 * runs; listeners hear {@link dev.baton.BatonListener#onEpochChange}. Claims of other threads wait for the move.
 * Thread-safe.
 *
 * <p>The move runs on the claim's connection and is committed before the claim: in autocommit mode (PostgreSQL) by
 * itself, in the claim's transaction (MySQL and MariaDB, whose claim is several statements) by a commit of its own, so
 * that a claim that then fails and rolls back does not undo it while this watch already holds the new epoch.
 */
final class EpochWatch<S extends Enum<S>> {
    private static final Logger log = LoggerFactory.getLogger(EpochWatch.class);
    private static final int CHUNK = 500;
    private static final long WINDOW_NANOS = EpochChange.WINDOW.toNanos();

    private record Mark(Object id, long nanos) {}

    private final QueueShape<S> shape;
    /** Oldest first; guarded by itself. */
    private final ArrayDeque<Mark> marks = new ArrayDeque<>();
    /** Marks dropped because more than {@link EpochChange#MAX_TRACKED} were kept; guarded by {@link #marks}. */
    private long untracked;
    /** Set when the server refused the epoch query for another reason than a failover: never asked again. */
    private volatile boolean unreadable;
    /** The epoch the last claim saw; null before the first claim, or when the database reports none. */
    private volatile String current;
    /**
     * The epoch a move to the unknown state is under way for, and the rows it found without their mark so far; guarded
     * by {@code this}. Kept across the claim's retries: a move whose reply was lost may have committed, and its retry
     * then finds those rows unknown already, so only the union of what each attempt found counts them all.
     */
    private String moving;

    private Set<Object> found = new LinkedHashSet<>();

    EpochWatch(QueueShape<S> shape) {
        this.shape = shape;
    }

    /** Whether this queue reads the epoch: only a queue with a non-idempotent sink has sends to lose. */
    boolean active() {
        return shape.sending != null;
    }

    /** A SENDING mark of row {@code id} committed and not known durable on a standby. */
    void notKnownDurable(Object id) {
        long now = System.nanoTime();
        synchronized (marks) {
            marks.addLast(new Mark(id, now));
            prune(now);
            if (marks.size() > EpochChange.MAX_TRACKED) {
                marks.pollFirst();
                untracked++;
            }
        }
    }

    /** Set to the end of the {@link EpochChange#HOLD} when this process saw a new writer; 0: no hold. */
    private volatile long holdUntil;

    /** Whether claims hold now, after a new writer was seen (see {@link EpochChange#HOLD}). */
    private boolean holding() {
        long until = holdUntil;
        if (until == 0) {
            return false;
        }
        if (System.nanoTime() - until < 0) {
            return true;
        }
        holdUntil = 0;
        return false;
    }

    /**
     * Before a claim on {@code c}: reads the epoch and, when it changed, moves the rows whose marks were lost.
     *
     * @return false when the claim must take nothing: this process saw a new writer less than {@link EpochChange#HOLD}
     *     ago, and the queue's other processes may not have moved their lost marks yet
     */
    boolean beforeClaim(Connection c) throws SQLException {
        if (!active() || shape.engine.inHostTransaction()) {
            return true;
        }
        if (holding()) {
            return false;
        }
        if (unreadable) {
            return true;
        }
        Optional<String> read;
        try {
            read = shape.dialect.diagnostics().epoch(c);
        } catch (SQLException e) {
            SqlError error = shape.dialect.diagnostics().classify(e);
            if (error.retryable() || error.failover()) {
                throw e; // the claim's retry reads it again, on a new connection
            }
            // a server that does not offer the function (a managed service's fork): claims go on without the watch
            unreadable = true;
            log.warn(
                    "queue '{}': cannot read the writer's epoch ({}); rows whose SENDING marks a failover loses will"
                            + " not be sent to reconciliation by this process",
                    shape.name,
                    e.getMessage());
            return true;
        }
        if (read.isEmpty() || read.get().equals(current)) {
            return !holding(); // another thread may have seen the change a moment ago
        }
        synchronized (this) {
            String before = current;
            String now = read.get();
            if (now.equals(before)) {
                return !holding(); // another claim moved them
            }
            if (before == null) {
                current = now; // this process's first claim: nothing it marked can be on another writer's past
                return true;
            }
            Set<Object> ids = new LinkedHashSet<>();
            long dropped;
            Mark last;
            synchronized (marks) {
                prune(System.nanoTime());
                last = marks.peekLast();
                for (Mark m : marks) {
                    ids.add(m.id());
                }
                dropped = untracked;
            }
            if (!now.equals(moving)) {
                moving = now;
                found = new LinkedHashSet<>();
            }
            moveToUnknown(c, new ArrayList<>(ids), found);
            if (!c.getAutoCommit()) {
                c.commit(); // the claim's transaction goes on in a new one
            }
            long moved = found.size();
            moving = null;
            found = new LinkedHashSet<>();
            synchronized (marks) {
                // marks made since were made on the new writer (or refused): only those up to here were in doubt
                while (last != null && !marks.isEmpty() && marks.peekFirst().nanos() - last.nanos() <= 0) {
                    marks.pollFirst();
                }
                untracked -= dropped;
            }
            EpochChange change = new EpochChange(shape.name, before, now, ids.size(), moved, dropped);
            boolean hold = shape.def.sendDurability() != SendDurability.REQUIRE;
            if (hold) {
                // the other processes' marks: no claim until they have had the time to move theirs
                holdUntil = Math.max(1, System.nanoTime() + EpochChange.HOLD.toNanos());
            }
            current = now;
            if (moved > 0) {
                log.warn(
                        "queue '{}': the writer changed ({} -> {}), a failover: of the {} SENDING mark(s) this process made"
                                + " in the last {} s that no standby was known to have, {} were gone on the new writer;"
                                + " those sends are in doubt and their rows are now unknown, for reconciliation{}",
                        shape.name,
                        before,
                        now,
                        ids.size(),
                        EpochChange.WINDOW.toSeconds(),
                        moved,
                        change.untracked() == 0 ? "" : " (" + change.untracked() + " older marks were not kept)");
            } else {
                log.info(
                        "queue '{}': the writer changed ({} -> {}), a failover; every SENDING mark of the last {} s"
                                + " that this process made ({}) is on the new writer{}",
                        shape.name,
                        before,
                        now,
                        EpochChange.WINDOW.toSeconds(),
                        ids.size(),
                        change.untracked() == 0 ? "" : " (" + change.untracked() + " older marks were not kept)");
            }
            shape.engine.fire(l -> l.onEpochChange(change));
            return !hold;
        }
    }

    /** Drops marks older than the window; the caller holds {@link #marks}. */
    private void prune(long now) {
        while (!marks.isEmpty() && now - marks.peekFirst().nanos() > WINDOW_NANOS) {
            marks.pollFirst();
        }
    }

    /**
     * Claimable or processing rows among {@code ids} → unknown, token cleared, quarantined as an expired send is (its
     * sender may still be about to call). Rows the new writer has sending, completed or dead are left alone. Each chunk
     * first reads which of its rows are claimable or processing into {@code found}, then moves them with the same
     * guard: the count is right even when a reply is lost, because a retry adds what it finds to what the lost attempt
     * found, and the guard moves nothing twice.
     */
    private void moveToUnknown(Connection c, List<Object> ids, Set<Object> found) throws SQLException {
        QueueShape<S> s = shape;
        SqlFragment from = s.in(List.of(s.claimable, s.processing));
        for (int i = 0; i < ids.size(); i += CHUNK) {
            List<Object> chunk = ids.subList(i, Math.min(ids.size(), i + CHUNK));
            String in =
                    s.qId + " IN (" + String.join(", ", Collections.nCopies(chunk.size(), "?")) + ") AND " + from.sql();
            List<Object> where = new ArrayList<>(chunk);
            where.addAll(from.binds());
            try (PreparedStatement ps = c.prepareStatement("SELECT " + s.qId + " FROM " + s.qTable + " WHERE " + in)) {
                Rows.bind(ps, 1, where);
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        found.add(rs.getObject(1));
                    }
                }
            }
            String sql = "UPDATE " + s.qTable + " SET " + s.qState + " = ?, " + s.qLease + " = "
                    + s.nowPlus(Sweeps.quarantine(s)) + ", " + s.qToken + " = NULL WHERE " + in;
            List<Object> binds = new ArrayList<>();
            binds.add(s.machine.code(s.unknown));
            binds.addAll(where);
            Engine.update(c, sql, binds);
        }
    }
}
