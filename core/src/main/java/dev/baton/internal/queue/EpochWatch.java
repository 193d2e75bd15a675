package dev.baton.internal.queue;

import dev.baton.EpochChange;
import dev.baton.SendDurability;
import dev.baton.internal.tx.Drain;
import dev.baton.internal.tx.StaleWriterException;
import dev.baton.spi.Rows;
import dev.baton.spi.SqlError;
import dev.baton.spi.SqlFragment;
import dev.baton.spi.WriterEpoch;
import java.lang.ref.WeakReference;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * For a queue with a non-idempotent sink: reads the writer's epoch and whether its
 * commits are synchronous ({@link dev.baton.spi.Diagnostics#writer}, one round trip) on the claim's connection before
 * each claim, and keeps the SENDING marks this process committed within {@link EpochChange#WINDOW}, each known
 * durable or not: known durable when its statement was sent after a reading that found synchronous commits and no
 * reading found otherwise until it returned (no query of its own). When the epoch changes, the rows of those marks
 * that the new writer holds in the claimable or processing state (their mark was lost with the old writer) move to the
 * unknown state, with the quarantine an expired send gets, before the claim runs; listeners hear {@link
 * dev.baton.BatonListener#onEpochChange}. Claims of other threads wait for the move. Claims then hold for {@link
 * EpochChange#HOLD} unless the last reading of the old writer found synchronous commits, every mark kept was known
 * durable, none was dropped, and none was lost. Thread-safe.
 *
 * <p>The record (the epoch last seen, the marks, the hold) is one per queue (its table and name) and data source in
 * this JVM, shared by every {@code ClaimQueue} object built for it, as the wake-ups share their registry: a second
 * object of the queue must move the first one's lost marks, not claim them. A mark is forgotten when this process's own write
 * puts its row back in the claimable state afterwards (a retry, a release, a reconciler's "not sent"): the row is due
 * again by a verdict that nothing was sent, and a failover that keeps that write kept the mark before it.
 *
 * <p>The move is committed before the claim: on the data source in autocommit mode (PostgreSQL) by itself, in the
 * claim's transaction (MySQL and MariaDB, whose claim is several statements) by a commit of its own, so that a claim
 * that then fails and rolls back does not undo it while the record already holds the new epoch. In a caller's
 * transaction, which Baton must not commit and which may still roll back, it runs in a transaction of its own on
 * another connection of the data source, and the claim goes on in the caller's transaction.
 */
final class EpochWatch<S extends Enum<S>> {
    private static final Logger log = LoggerFactory.getLogger(EpochWatch.class);
    private static final int CHUNK = 500;
    private static final long WINDOW_NANOS = EpochChange.WINDOW.toNanos();

    /**
     * The records by data source, found by identity (a data source's {@code equals} and {@code hashCode} are not
     * called: proxies may refuse them) and weakly held, then by queue; guarded by itself.
     */
    private static final List<Keyed> RECORDS = new ArrayList<>();

    /**
     * A SENDING mark: when it returned, and whether it is known durable (its commit started after a reading of the
     * writer that found synchronous commits, and no reading found otherwise until it returned).
     */
    private record Mark(long at, boolean durable) {}

    private record Keyed(WeakReference<DataSource> dataSource, Map<String, Record> queues) {}

    /** What this JVM knows of one queue's writer and marks. */
    private static final class Record {
        /**
         * When each tracked row was marked ({@link System#nanoTime()}), and whether the mark is known durable, by its
         * id's key, oldest first; guarded by itself.
         */
        final LinkedHashMap<Object, Mark> marks = new LinkedHashMap<>();
        /**
         * When the readings of the writer began to find synchronous commits without a break ({@link
         * System#nanoTime()} before the first of them), 0 when the last one did not; guarded by {@link #marks}.
         */
        long synchronousSince;
        /** When the last reading that did not find synchronous commits began; guarded by {@link #marks}. */
        long asynchronousAt = System.nanoTime();
        /** Marks dropped because more than {@link EpochChange#MAX_TRACKED} were kept; guarded by {@link #marks}. */
        long untracked;
        /** Set when the server refused the epoch query for another reason than a failover: never asked again. */
        volatile boolean unreadable;
        /** The epoch the last claim saw; null before the first claim, or when the database reports none. */
        volatile String current;
        /** Set to the end of the {@link EpochChange#HOLD} when a claim saw a new writer; 0: no hold. */
        volatile long holdUntil;
        /**
         * The epoch a move to the unknown state is under way for, and the rows it found without their mark so far;
         * guarded by this record. Kept across the claim's retries: a move whose reply was lost may have committed, and
         * its retry then finds those rows unknown already, so only the union of what each attempt found counts them
         * all.
         */
        String moving;

        Set<Object> found = new LinkedHashSet<>();
    }

    private static Record recordOf(DataSource dataSource, String queue) {
        synchronized (RECORDS) {
            RECORDS.removeIf(k -> k.dataSource.get() == null);
            for (Keyed k : RECORDS) {
                if (k.dataSource.get() == dataSource) {
                    return k.queues.computeIfAbsent(queue, q -> new Record());
                }
            }
            Keyed k = new Keyed(new WeakReference<>(dataSource), new HashMap<>());
            RECORDS.add(k);
            return k.queues.computeIfAbsent(queue, q -> new Record());
        }
    }

    private final QueueShape<S> shape;
    /** This queue's record; null when the queue has no non-idempotent sink. */
    private final Record record;

    /** The dialect's condition that the writer's epoch is at least a bound one, or null where epochs are unordered. */
    private final String epochAtLeast;

    EpochWatch(QueueShape<S> shape) {
        this.shape = shape;
        this.record = shape.send
                .map(p -> recordOf(shape.engine.dataSource(), shape.qTable + "\u0000" + shape.name))
                .orElse(null);
        this.epochAtLeast = shape.dialect.diagnostics().epochAtLeast().orElse(null);
    }

    /**
     * The condition a SENDING mark carries so that it cannot land on a writer older than the newest this process has
     * seen ({@link dev.baton.spi.Diagnostics#epochAtLeast}), with its bind; empty where the dialect has none, or
     * before this process saw a numbered epoch.
     */
    Optional<SqlFragment> newestWriter() {
        if (record == null || epochAtLeast == null) {
            return Optional.empty();
        }
        Long newest = number(record.current);
        return newest == null ? Optional.empty() : Optional.of(new SqlFragment(epochAtLeast, List.of(newest)));
    }

    /** Whether this queue's writes may carry {@link #newestWriter}'s condition (one bind more). */
    boolean guardsWriter() {
        return record != null && epochAtLeast != null;
    }

    /** True when {@code reported} is an older epoch than {@code newest}, where the dialect's epochs are ordered. */
    private boolean older(String reported, String newest) {
        if (epochAtLeast == null || newest == null) {
            return false;
        }
        Long a = number(reported);
        Long b = number(newest);
        return a != null && b != null && a < b;
    }

    private Long number(String epoch) {
        if (epoch == null) {
            return null;
        }
        OptionalLong order = shape.dialect.diagnostics().epochOrder(epoch);
        return order.isPresent() ? order.getAsLong() : null;
    }

    /** Whether this queue reads the epoch: only a queue with a non-idempotent sink has sends to lose. */
    boolean active() {
        return record != null;
    }

    /** A SENDING mark of row {@code id} committed and not known durable on a standby. */
    void notKnownDurable(Object id) {
        track(id, 0, false);
    }

    /**
     * A SENDING mark of row {@code id} committed by a statement sent at {@code sentNanos} ({@link System#nanoTime()}):
     * known durable when every reading of the writer from before it was sent until now found synchronous commits.
     */
    void marked(Object id, long sentNanos) {
        track(id, sentNanos, true);
    }

    private void track(Object id, long sentNanos, boolean maybeDurable) {
        Object key = FencedWrites.idKey(id);
        Record r = record;
        synchronized (r.marks) {
            long now = System.nanoTime(); // taken under the lock: the map stays in the order of these times
            boolean durable = maybeDurable && r.synchronousSince != 0 && r.synchronousSince - sentNanos < 0;
            r.marks.remove(key); // a row marked again moves to the end
            r.marks.put(key, new Mark(now, durable));
            prune(now);
            if (r.marks.size() > EpochChange.MAX_TRACKED) {
                Iterator<Object> eldest = r.marks.keySet().iterator();
                eldest.next();
                eldest.remove();
                r.untracked++;
            }
        }
    }

    /**
     * This process's own write, sent at {@code sentNanos} or later, put row {@code id} back in the claimable state: its
     * marks made before are no longer in doubt. Not in a caller's transaction, which may still roll back.
     */
    void putBack(Object id, long sentNanos) {
        if (record == null || shape.engine.tx().inHostTransaction()) {
            return;
        }
        Object key = FencedWrites.idKey(id);
        synchronized (record.marks) {
            Mark at = record.marks.get(key);
            if (at != null && at.at() - sentNanos < 0) { // a mark after the write is a later claim's
                record.marks.remove(key);
            }
        }
    }

    /** Whether claims hold now, after a new writer was seen (see {@link EpochChange#HOLD}). */
    private boolean holding() {
        long until = record.holdUntil;
        if (until == 0) {
            return false;
        }
        if (System.nanoTime() - until < 0) {
            return true;
        }
        record.holdUntil = 0;
        return false;
    }

    /**
     * Before a claim on {@code c}: reads the epoch and, when it changed, moves the rows whose marks were lost.
     *
     * @return false when the claim must take nothing: this process saw a new writer less than {@link EpochChange#HOLD}
     *     ago, and the queue's other processes may not have moved their lost marks yet
     */
    boolean beforeClaim(Connection c) throws SQLException {
        if (record == null) {
            return true;
        }
        Record r = record;
        if (holding()) {
            return false;
        }
        if (r.unreadable) {
            return true;
        }
        boolean callers = shape.engine.tx().inHostTransaction();
        Optional<WriterEpoch> read;
        long readAt = System.nanoTime();
        try {
            read = shape.dialect.diagnostics().writer(c);
        } catch (SQLException e) {
            SqlError error = shape.dialect.diagnostics().classify(e);
            if (error.retryable() || error.failover()) {
                throw e; // the claim's retry reads it again, on a new connection
            }
            // a server that does not offer the function (a managed service's fork): claims go on without the watch
            r.unreadable = true;
            log.warn(
                    "queue '{}': cannot read the writer's epoch ({}); rows whose SENDING marks a failover loses will"
                            + " not be sent to reconciliation by this process",
                    shape.name,
                    e.getMessage());
            if (callers && shape.dialect.traits().failedStatementAbortsTransaction()) {
                throw e; // the caller's transaction can run nothing more; its next claim goes on without the watch
            }
            return true;
        }
        if (read.isEmpty()) {
            observe(readAt, false);
            return !holding();
        }
        if (read.get().epoch().equals(r.current)) {
            observe(readAt, read.get().synchronousCommits());
            return !holding(); // another thread may have seen the change a moment ago
        }
        if (older(read.get().epoch(), r.current)) {
            throw new StaleWriterException(read.get().epoch(), r.current);
        }
        synchronized (r) {
            String before = r.current;
            String now = read.get().epoch();
            if (now.equals(before)) {
                observe(readAt, read.get().synchronousCommits());
                return !holding(); // another claim moved them
            }
            if (older(now, before)) {
                throw new StaleWriterException(now, before);
            }
            if (before == null) {
                observe(readAt, read.get().synchronousCommits());
                r.current = now; // this queue's first claim here: nothing marked can be on another writer's past
                return true;
            }
            Set<Object> ids = new LinkedHashSet<>();
            int notDurable = 0;
            long dropped;
            boolean wasSynchronous;
            Long last = null;
            synchronized (r.marks) {
                prune(System.nanoTime());
                for (Map.Entry<Object, Mark> m : r.marks.entrySet()) {
                    // marks known durable are looked up too: a switch to asynchronous commits between two readings
                    // is seen by no reading, and a lost one found here still goes to reconciliation
                    ids.add(m.getKey());
                    last = m.getValue().at();
                    notDurable += m.getValue().durable() ? 0 : 1;
                }
                dropped = r.untracked;
                wasSynchronous = r.synchronousSince != 0;
            }
            if (!now.equals(r.moving)) {
                r.moving = now;
                r.found = new LinkedHashSet<>();
            }
            Set<Object> found = r.found;
            List<Object> list = new ArrayList<>(ids);
            if (callers) {
                // the caller's transaction may still roll back, while the record forgets these marks once moved
                shape.engine
                        .tx()
                        .ownTransaction("move the rows of lost SENDING marks in queue '" + shape.name + "'", own -> {
                            moveToUnknown(own, list, found);
                            return null;
                        });
            } else {
                moveToUnknown(c, list, found);
                if (!c.getAutoCommit()) {
                    c.commit(); // the claim's transaction goes on in a new one
                }
            }
            long moved = found.size();
            r.moving = null;
            r.found = new LinkedHashSet<>();
            synchronized (r.marks) {
                // marks made since were made on the new writer (or refused): only those up to here were in doubt
                Iterator<Mark> times = r.marks.values().iterator();
                while (last != null && times.hasNext() && times.next().at() - last <= 0) {
                    times.remove();
                }
                r.untracked -= dropped;
                // the old writer's readings say nothing of the new one's commits: its run starts with the next one
                r.synchronousSince = 0;
                r.asynchronousAt = readAt;
            }
            EpochChange change = new EpochChange(shape.name, before, now, notDurable, moved, dropped);
            // the other processes' marks are not in this record: they can have been lost only if the old writer's
            // commits were not synchronous (as far as this process saw, up to its last reading and through its own
            // marks, none of which was lost)
            boolean hold = shape.sendDurability() != SendDurability.REQUIRE
                    && (!wasSynchronous || notDurable > 0 || dropped > 0 || moved > 0);
            if (hold) {
                // the other processes' marks: no claim until they have had the time to move theirs
                r.holdUntil = Math.max(1, System.nanoTime() + EpochChange.HOLD.toNanos());
            }
            r.current = now;
            if (moved > 0) {
                log.warn(
                        "queue '{}': the writer changed ({} -> {}), a failover: of the {} SENDING mark(s) this process made"
                                + " in the last {} s ({} not known durable on a standby), {} were gone on the new"
                                + " writer; those sends are in doubt and their rows are now unknown, for reconciliation{}",
                        shape.name,
                        before,
                        now,
                        ids.size(),
                        EpochChange.WINDOW.toSeconds(),
                        notDurable,
                        moved,
                        change.untracked() == 0 ? "" : " (" + change.untracked() + " older marks were not kept)");
            } else {
                log.info(
                        "queue '{}': the writer changed ({} -> {}), a failover; every SENDING mark of the last {} s"
                                + " that this process made ({}, {} not known durable) is on the new writer{}; {}",
                        shape.name,
                        before,
                        now,
                        EpochChange.WINDOW.toSeconds(),
                        ids.size(),
                        notDurable,
                        change.untracked() == 0 ? "" : " (" + change.untracked() + " older marks were not kept)",
                        hold
                                ? "claims hold for " + EpochChange.HOLD.toSeconds() + " s"
                                : "the old writer's commits were synchronous: claims go on");
            }
            // the move committed by itself, also in a caller's transaction (whose rollback does not undo it)
            shape.engine.events().fireNow(l -> l.onEpochChange(change));
            return !hold;
        }
    }

    /** A reading of the writer begun at {@code readAt} found its commits synchronous or not. */
    private void observe(long readAt, boolean synchronous) {
        Record r = record;
        synchronized (r.marks) {
            if (!synchronous) {
                r.synchronousSince = 0;
                if (readAt - r.asynchronousAt > 0) {
                    r.asynchronousAt = readAt;
                }
            } else if (r.synchronousSince == 0 && readAt - r.asynchronousAt > 0) {
                // a reading begun before the last one that found asynchronous commits starts no run
                r.synchronousSince = readAt;
            }
        }
    }

    /** Drops marks older than the window; the caller holds the record's marks. */
    private void prune(long now) {
        Iterator<Mark> times = record.marks.values().iterator();
        while (times.hasNext() && now - times.next().at() > WINDOW_NANOS) {
            times.remove();
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
                        found.add(FencedWrites.idKey(rs.getObject(1)));
                    }
                }
            }
            String sql = "UPDATE " + s.qTable + " SET " + s.qState + " = ?, " + s.qLease + " = "
                    + s.nowPlus(Sweeps.quarantine(s)) + ", " + s.qToken + " = NULL WHERE " + in;
            List<Object> binds = new ArrayList<>();
            binds.add(s.machine.code(s.send.orElseThrow().unknown()));
            binds.addAll(where);
            Drain.update(c, sql, binds);
        }
    }
}
