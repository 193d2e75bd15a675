package dev.baton.bench.outbox;

import dev.baton.bench.Measurement;
import dev.baton.bench.Options;
import dev.baton.bench.Point;
import dev.baton.bench.Probe;
import dev.baton.bench.Target;
import dev.baton.bench.Workload;
import java.sql.Connection;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Outbox enqueue + dispatch, messages per second end to end, Baton's outbox ({@link BatonOutbox})
 * against the same outbox written by hand ({@link RawOutbox}). In every timed run P producer threads and D dispatcher
 * threads start together on a fresh table holding delivered history; the timer stops when the last message's delivery is committed.
 */
public final class OutboxWorkload implements Workload {
    /** Messages per claim. */
    static final int BATCH = 100;
    /** A run that has not delivered everything by then is stopped and counted as failed. */
    static final long TIMEOUT_NANOS = TimeUnit.MINUTES.toNanos(2);

    private final int[] threads;

    /** Points: {@code threads[i]} producers and as many dispatchers, claiming {@value #BATCH} at a time. */
    public OutboxWorkload(int[] threads) {
        this.threads = threads.clone();
    }

    @Override
    public String name() {
        return "outbox";
    }

    /**
     * Messages per timed run: 3,500 with one producer, 7,000 with more (quick: 1,000, 2,000): runs of 2 to 3 s, the
     * whole workload in about 80 s on the 2-core machine.
     */
    static int messages(Options o, int producers) {
        if (o.quick()) {
            return producers == 1 ? 1_000 : 2_000;
        }
        return producers == 1 ? 3_500 : 7_000;
    }

    @Override
    public String description(Options o) {
        return "Outbox enqueue + dispatch, end to end: from a fresh table `" + OutboxTable.NAME + "` (Baton's"
                + " `ownTables().outboxDdl` for both variants) holding " + String.format("%,d", OutboxTable.HISTORY)
                + " delivered messages of the same keys (ids below 1, statistics refreshed), P producer threads and D dispatcher threads start together"
                + " (point `p=P d=D b=B`: B messages per claim); " + String.format("%,d", messages(o, 1))
                + " messages per run with one producer, " + String.format("%,d", messages(o, 2)) + " with more, of "
                + Ledger.PAYLOAD_BYTES + " bytes, topic `" + Ledger.TOPIC
                + "`, message i with key `k<i"
                + " mod " + Ledger.KEYS + ">`; messages/s = messages / (start → the last message marked DELIVERED and"
                + " committed). Both variants order per key, Baton's default (`Outbox.Options.defaults()`:"
                + " `orderedPerKey` true, lease 1 minute): a message is claimed only when no earlier message of its key is"
                + " PENDING or PROCESSING, so at most " + Ledger.KEYS
                + " messages are in flight at once. Both producers"
                + " run each message as its own transaction on a pooled connection (`getConnection`,"
                + " `setAutoCommit(false)`, the insert, `commit`, `close`); the sink records the message id in an array"
                + " and checks topic and payload size.\n\n"
                + "- `baton`: producer `outbox.enqueue(connection, Message.of(topic, payload).key(key))` (one `INSERT`"
                + " returning the generated id); D `outbox.dispatcher(sink).batchSize(B).pollInterval(5 ms, 20 ms)"
                + ".start()` workers, otherwise default (concurrency 1: the poller claims with `ClaimQueue.claimSql(B)`,"
                + " calls the sink inline, then marks the batch DELIVERED with one fenced autocommit statement,"
                + " `ClaimQueue.applyAll`; each worker also runs its expired-lease sweep once at start). Every claim and"
                + " completion borrows a pooled connection; a transaction (the MariaDB claim) switches autocommit off and"
                + " back on around it (a round trip each on MariaDB). A listener's `onOutcome` (after the commit) counts"
                + " deliveries.\n"
                + "- `raw`: hand-written JDBC. Producer: the same `INSERT` (same columns and binds: status 0, attempts 0,"
                + " `created_at` from the database clock, null headers and dedup key; generated id read back). D threads,"
                + " each holding one connection at READ COMMITTED: the same claim as Baton's, text compared at start-up"
                + " with `claimSql(B)` (PostgreSQL: Baton's exact statement, a `MATERIALIZED` CTE with the per-key `NOT"
                + " EXISTS` guard, `FOR NO KEY UPDATE SKIP LOCKED`, then `UPDATE … RETURNING` the message, in autocommit;"
                + " MariaDB: the same `SELECT id, attempts + 1, <message columns> … FOR UPDATE SKIP LOCKED`, then"
                + " the same `UPDATE … WHERE id IN (…) AND <guard>`, commit), the same sink, then the same fenced completion `UPDATE … SET"
                + " status = 2, lease_until = NULL WHERE id IN (…) AND claim_token = ? AND status = 1` (autocommit on"
                + " PostgreSQL, then a commit on MariaDB); after an empty claim it sleeps"
                + " 5 ms doubling to 20 ms, as Baton's worker. On MariaDB its connection stays in manual-commit mode."
                + " Both variants run with the drivers' defaults (pgjdbc server-prepares a statement after five"
                + " executions).\n\n"
                + "Verified after every run: every message enqueued once and delivered exactly once by the sink, nothing"
                + " else delivered, the table holds exactly the messages, all DELIVERED, each claimed once (attempts ="
                + " 1). Before every run the table is dropped, recreated and filled with the history, then PostgreSQL is vacuumed and"
                + " checkpointed (MariaDB: purge caught up). Both variants are warmed up once (untimed, p=4 d=4) before"
                + " the first repetition. The check column of `results.csv` also says when the last producer's commit"
                + " returned: a run whose last delivery comes well after it was bounded by the dispatchers' claims, not"
                + " by the producers' commits.";
    }

    @Override
    public List<Point> points(Options options) {
        List<Point> points = new ArrayList<>();
        for (int t : threads) {
            points.add(new Point("producers = dispatchers", t, "p=" + t + " d=" + t + " b=" + BATCH));
        }
        return points;
    }

    @Override
    public String unit() {
        return "messages/s";
    }

    /** At most 3: a run is bounded by work, not time. */
    @Override
    public int reps(Options o) {
        return Math.min(3, o.reps());
    }

    /**
     * Checks that the hand-written claim still does what Baton's does (stops the workload if Baton's SQL changed), then
     * warms up both variants (JIT, drivers, server-side statement caches) with one small untimed run each.
     */
    @Override
    public void prepare(Target target, Options o) throws Exception {
        boolean pg = target.kind() == Target.Kind.POSTGRES;
        OutboxTable.create(target);
        List<String> batonSql =
                new BatonOutbox(target, new Ledger(1)).outbox().queue().claimSql(BATCH);
        String mismatch = RawOutbox.mismatch(pg, BATCH, batonSql);
        if (mismatch != null) {
            throw new IllegalStateException("Baton's outbox claim SQL changed; update the hand-written variant"
                    + " (RawOutbox) to do the same work.\n  " + mismatch);
        }
        int warm = o.quick() ? 200 : 1_000;
        for (String variant : variants(target)) {
            Measurement m = once(target, variant, 4, 4, warm, null);
            if (m.failures() > 0) {
                throw new IllegalStateException("warm-up of " + variant + " failed: " + m.check());
            }
        }
    }

    @Override
    public Measurement run(Target target, String variant, Point point, Options o, Probe probe) throws Exception {
        int t = (int) point.x();
        return once(target, variant, t, t, messages(o, t), probe);
    }

    /** One run: fresh table, P producers and D dispatchers started together, timed to the last committed delivery. */
    private static Measurement once(Target target, String variant, int producers, int dispatchers, int n, Probe probe)
            throws Exception {
        OutboxTable.create(target);
        if (probe != null) {
            probe.quiesce(OutboxTable.NAME);
        }
        Ledger ledger = new Ledger(n);
        OutboxVariant v = variant.equals("baton") ? new BatonOutbox(target, ledger) : new RawOutbox(target, ledger);
        ExecutorService pool = Executors.newFixedThreadPool(producers);
        AtomicInteger next = new AtomicInteger();
        AtomicLong enqueued = new AtomicLong();
        List<Future<?>> futures = new ArrayList<>();
        if (probe != null) {
            probe.begin();
        }
        long t0 = System.nanoTime();
        v.startDispatchers(dispatchers, BATCH);
        for (int p = 0; p < producers; p++) {
            futures.add(pool.submit(() -> {
                for (int i = next.getAndIncrement(); i < n; i = next.getAndIncrement()) {
                    produce(target, v, ledger, i);
                }
                enqueued.accumulateAndGet(System.nanoTime() - t0, Math::max);
                return null;
            }));
        }
        boolean finished;
        String problem = null;
        while (!(finished = ledger.committed.await(20, TimeUnit.MILLISECONDS))) {
            problem = v.problem() != null ? v.problem() : failedProducer(futures);
            if (problem != null || System.nanoTime() - t0 > TIMEOUT_NANOS) {
                break;
            }
        }
        double seconds = (System.nanoTime() - t0) / 1e9;
        if (probe != null) {
            probe.end();
        }
        pool.shutdownNow();
        pool.awaitTermination(1, TimeUnit.MINUTES);
        v.stopDispatchers();
        return ledger.measure(target, seconds, enqueued.get() / 1e9, finished, problem);
    }

    /** Message i in its own transaction on a pooled connection. */
    private static void produce(Target target, OutboxVariant v, Ledger ledger, int i) throws Exception {
        try (Connection c = target.pool().getConnection()) {
            c.setAutoCommit(false);
            long id;
            try {
                id = v.enqueue(c, i);
                c.commit();
            } catch (Exception e) {
                c.rollback();
                throw e;
            }
            ledger.enqueued(id);
        }
    }

    private static String failedProducer(List<Future<?>> futures) throws InterruptedException {
        for (Future<?> f : futures) {
            if (f.isDone()) {
                try {
                    f.get();
                } catch (ExecutionException e) {
                    return "a producer failed: " + e.getCause();
                }
            }
        }
        return null;
    }

    @Override
    public String finish(Target target) throws Exception {
        OutboxTable.drop(target);
        return "";
    }
}
