package dev.baton.internal.audit;

import dev.baton.TransitionsInDoubt;
import dev.baton.internal.events.Events;
import dev.baton.internal.sql.TableStatements;
import dev.baton.internal.tx.Transactions;
import dev.baton.spi.Dialect;
import java.lang.ref.WeakReference;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Lost acknowledged transitions ({@code Baton.Builder.failoverAudit}): keeps, per table, the transitions this
 * instance applied and acknowledged within the window, and reads the writer's epoch ({@link
 * dev.baton.spi.Diagnostics#epoch}) about once a second on a daemon thread of its own. When the epoch changes, it looks
 * the recorded rows up on the new writer: a row back in a source state of its transition lost that transition with the
 * old writer. Listeners hear {@link dev.baton.BatonListener#onTransitionsInDoubt}. Thread-safe.
 *
 * <p>The thread starts with the instance and ends when its first three reads find no epoch, when the epoch cannot
 * be read for another reason than a transient failure, or when the instance is no longer reachable (it holds the audit
 * weakly).
 */
public final class FailoverAudit {
    private static final Logger log = LoggerFactory.getLogger(FailoverAudit.class);
    private static final long TICK_MILLIS = 1_000;
    private static final int CHUNK = 500;
    /** Empty epoch reads, before any epoch was seen, after which the thread ends. */
    private static final int EMPTY_READS_TO_STOP = 3;

    /** One transition's sources and target, shared by every record of it. */
    private record Move<S extends Enum<S>>(List<S> sources, S target) {}

    private record Applied<S extends Enum<S>>(Object id, Move<S> move, long nanos) {}

    /** The records of one table (by name, id column, state column and machine). */
    private static final class Table<S extends Enum<S>> {
        final String name;
        final TableStatements<S> statements;
        final Map<List<Object>, Move<S>> moves = new ConcurrentHashMap<>();
        /** Oldest first; guarded by itself. */
        final ArrayDeque<Applied<S>> applied = new ArrayDeque<>();
        /** Records dropped for {@link TransitionsInDoubt#MAX_TRACKED}; guarded by {@link #applied}. */
        long untracked;

        Table(String name, TableStatements<S> statements) {
            this.name = name;
            this.statements = statements;
        }
    }

    private final Transactions tx;
    private final Dialect dialect;
    private final Events events;
    private final long windowNanos;
    private final Map<String, Table<?>> tables = new ConcurrentHashMap<>();
    /** False when off, or once the thread found that the database reports no epoch: nothing is recorded then. */
    private volatile boolean on;
    /** The epoch last seen; null before the first read. Written by the audit thread only. */
    private volatile String current;
    /** Empty reads before the first epoch; the audit thread's only. */
    private int emptyReads;

    /**
     * The audit of the transitions applied through {@code tx} within {@code window}, its thread started here; off
     * (recording nothing, no thread) when {@code window} is null.
     */
    public FailoverAudit(Transactions tx, Dialect dialect, Events events, @Nullable Duration window) {
        this.tx = tx;
        this.dialect = dialect;
        this.events = events;
        this.windowNanos = window == null ? 0 : window.toNanos();
        this.on = window != null;
        if (on) {
            start();
        }
    }

    /** Starts the audit's daemon thread. */
    private void start() {
        WeakReference<FailoverAudit> ref = new WeakReference<>(this);
        Thread t = new Thread(() -> run(ref), "baton-failover-audit");
        t.setDaemon(true);
        t.start();
    }

    private static void run(WeakReference<FailoverAudit> ref) {
        while (true) {
            FailoverAudit audit = ref.get();
            if (audit == null || !audit.tick()) {
                return;
            }
            audit = null; // lets the instance be collected while the thread sleeps
            try {
                Thread.sleep(TICK_MILLIS);
            } catch (InterruptedException e) {
                return;
            }
        }
    }

    /**
     * A transition of {@code table} applied by this instance: recorded, when the audit is on, at once (it committed in
     * autocommit mode) or after the host transaction it joined commits (never, if that rolls back).
     */
    public <S extends Enum<S>> void applied(
            String table,
            String idColumn,
            String stateColumn,
            TableStatements<S> statements,
            Object id,
            List<S> sources,
            S target) {
        if (on) {
            tx.afterCommit(() -> record(table, idColumn, stateColumn, statements, id, sources, target));
        }
    }

    /** A transition of {@code table} that was applied and whose commit was acknowledged. */
    private <S extends Enum<S>> void record(
            String table,
            String idColumn,
            String stateColumn,
            TableStatements<S> statements,
            Object id,
            List<S> sources,
            S target) {
        if (!on) {
            return;
        }
        long now = System.nanoTime();
        String key = table
                + '\u0000'
                + idColumn
                + '\u0000'
                + stateColumn
                + '\u0000'
                + target.getDeclaringClass().getName();
        @SuppressWarnings("unchecked")
        Table<S> t = (Table<S>) tables.computeIfAbsent(key, k -> new Table<>(table, statements));
        List<Object> moveKey = new ArrayList<>(sources);
        moveKey.add(target);
        Move<S> move = t.moves.computeIfAbsent(moveKey, k -> {
            List<S> from = new ArrayList<>(sources);
            from.remove(target); // a row still in the target did not lose the transition
            return new Move<>(List.copyOf(from), target);
        });
        synchronized (t.applied) {
            t.applied.addLast(new Applied<>(id, move, now));
            prune(t, now);
            if (t.applied.size() > TransitionsInDoubt.MAX_TRACKED) {
                t.applied.pollFirst();
                t.untracked++;
            }
        }
    }

    private void prune(Table<?> t, long now) {
        while (!t.applied.isEmpty() && now - t.applied.peekFirst().nanos() > windowNanos) {
            t.applied.pollFirst();
        }
    }

    /** One read of the epoch, and the look-up when it changed. Returns false when the thread should end. */
    private boolean tick() {
        Optional<String> read;
        try {
            read = tx.autocommit("failover audit: read the writer's epoch", c -> dialect.diagnostics()
                    .epoch(c));
        } catch (RuntimeException e) {
            if (tx.failures().retryable(e)) {
                log.debug(
                        "failover audit: the writer's epoch could not be read now ({}); trying again", e.getMessage());
                return true;
            }
            on = false;
            tables.clear();
            log.warn(
                    "failover audit: cannot read the writer's epoch ({}); transitions lost in a failover will not be"
                            + " reported",
                    e.getMessage());
            return false;
        }
        if (read.isEmpty()) {
            // a dialect without epochs answers empty for good; one that has them may answer empty for a while (a
            // read-only server during a failover): only the first reads decide, and an empty read later is skipped
            if (current == null && ++emptyReads >= EMPTY_READS_TO_STOP) {
                on = false;
                tables.clear();
                log.info(
                        "failover audit: the database reports no epoch ({}); the audit is off",
                        dialect.getClass().getSimpleName());
                return false;
            }
            return true;
        }
        String now = read.get();
        String before = current;
        if (before == null) {
            current = now;
            return true;
        }
        if (now.equals(before)) {
            return true;
        }
        try {
            lookUp(before, now);
            current = now;
        } catch (RuntimeException e) {
            // the epoch stays the old one: the next tick looks the same records up again
            log.warn(
                    "failover audit: the writer changed ({} -> {}) but the look-up failed ({}); trying again",
                    before,
                    now,
                    e.getMessage());
        }
        return true;
    }

    private void lookUp(String before, String now) {
        for (Table<?> t : tables.values()) {
            lookUp(t, before, now);
        }
    }

    private <S extends Enum<S>> void lookUp(Table<S> t, String before, String now) {
        List<Applied<S>> recorded;
        long dropped;
        synchronized (t.applied) {
            prune(t, System.nanoTime());
            recorded = new ArrayList<>(t.applied);
            dropped = t.untracked;
        }
        if (recorded.isEmpty() && dropped == 0) {
            return;
        }
        // a read only: after a lost reply the retry reads everything again, into a new set
        Set<Object> lost =
                tx.autocommit("failover audit: look up the transitions of " + t.name, c -> lostOn(c, t, recorded));
        synchronized (t.applied) {
            // records made since were made on the new writer: only those up to here were in doubt
            if (!recorded.isEmpty()) {
                long last = recorded.get(recorded.size() - 1).nanos();
                while (!t.applied.isEmpty() && t.applied.peekFirst().nanos() - last <= 0) {
                    t.applied.pollFirst();
                }
            }
            t.untracked -= dropped;
        }
        List<Object> ids = new ArrayList<>();
        for (Object id : lost) {
            if (ids.size() == TransitionsInDoubt.MAX_IDS) {
                break;
            }
            ids.add(id);
        }
        TransitionsInDoubt report =
                new TransitionsInDoubt(t.name, before, now, recorded.size(), lost.size(), ids, dropped);
        if (lost.isEmpty()) {
            log.info(
                    "table '{}': the writer changed ({} -> {}), a failover; every transition this instance applied in"
                            + " the last {} s ({}) is on the new writer",
                    t.name,
                    before,
                    now,
                    Duration.ofNanos(windowNanos).toSeconds(),
                    recorded.size());
        } else {
            log.warn(
                    "table '{}': the writer changed ({} -> {}), a failover: of the {} transition(s) this instance applied"
                            + " in the last {} s, {} were lost with the old writer (the rows are back in a source"
                            + " state), e.g. ids {}; they were acknowledged and must be applied again",
                    t.name,
                    before,
                    now,
                    recorded.size(),
                    Duration.ofNanos(windowNanos).toSeconds(),
                    lost.size(),
                    ids.subList(0, Math.min(10, ids.size())));
        }
        events.fire(l -> l.onTransitionsInDoubt(report));
    }

    private static <S extends Enum<S>> Set<Object> lostOn(Connection c, Table<S> t, List<Applied<S>> recorded)
            throws SQLException {
        Map<Move<S>, Set<Object>> byMove = new java.util.LinkedHashMap<>();
        for (Applied<S> a : recorded) {
            byMove.computeIfAbsent(a.move(), k -> new LinkedHashSet<>()).add(a.id());
        }
        Set<Object> lost = new LinkedHashSet<>();
        for (Map.Entry<Move<S>, Set<Object>> e : byMove.entrySet()) {
            List<S> sources = e.getKey().sources();
            if (sources.isEmpty()) {
                continue;
            }
            List<Object> ids = new ArrayList<>(e.getValue());
            for (int i = 0; i < ids.size(); i += CHUNK) {
                lost.addAll(t.statements.idsIn(c, ids.subList(i, Math.min(ids.size(), i + CHUNK)), sources));
            }
        }
        return lost;
    }
}
