package dev.baton.bench.claim;

import dev.baton.Baton;
import dev.baton.ClaimQueue;
import dev.baton.ClaimedRow;
import dev.baton.bench.Latency;
import dev.baton.bench.Measurement;
import dev.baton.bench.Options;
import dev.baton.bench.Point;
import dev.baton.bench.Probe;
import dev.baton.bench.Target;
import dev.baton.bench.Workload;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;

/**
 * The latency of one claim of 10 rows (one worker, claimed rows completed at once so the head
 * moves) with 10 thousand pending rows, with 1 million pending rows, and with 10 thousand pending above 5 million
 * completed rows. A claim that stays an index range scan costs the same in all three. Baton's {@code
 * ClaimQueue.claim(10)} against the hand-written claim of {@link RawDrainer}; value = p50 in µs (p99 in the latency
 * column). The table is built once per point and all repetitions of that point run on it; claimed rows are reset to
 * pending between runs.
 */
public final class ClaimLatencyWorkload implements Workload {
    /** Unmeasured claims at the start of every run (JIT, caches, the first server-prepared statements). */
    private static final int WARMUP = 200;

    private final String name;
    private final long[][] scenarios; // {history, pending, purge batch (0: no purge)}
    private final int claims;
    private final java.util.Map<String, List<Double>> purgeRates = new java.util.HashMap<>(); // rows/s per run
    private final java.util.Map<String, List<Double>> p50s = new java.util.HashMap<>(); // "variant x" -> p50 per run
    private long builtHistory = -1;
    private long builtPending = -1;

    /** The three scenarios of the issue, {@code claims} claims measured per run. */
    public ClaimLatencyWorkload(long smallPending, long largePending, long largeHistory, int claims) {
        this(
                "claim-latency",
                new long[][] {{0, smallPending, 0}, {0, largePending, 0}, {largeHistory, smallPending, 0}},
                claims);
    }

    private ClaimLatencyWorkload(String name, long[][] scenarios, int claims) {
        this.name = name;
        this.scenarios = scenarios;
        this.claims = claims;
    }

    /**
     * {@code pending} rows alone, above {@code history} completed rows, and above them while a
     * purge deletes completed rows in batches of {@code purgeBatch} every 100 ms (the oldest first, by id range, as a purge by
     * completion time would) on another connection for the whole run. Shows whether a plain batched {@code DELETE}
     * keeps the claim flat at that size, which decides whether a queue table needs partitions.
     */
    public static ClaimLatencyWorkload retention(long pending, long history, int purgeBatch, int claims) {
        return new ClaimLatencyWorkload(
                "retention",
                new long[][] {{0, pending, 0}, {history, pending, 0}, {history, pending, purgeBatch}},
                claims);
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public String description(Options o) {
        return "Latency of one 10-row claim, one worker, each claimed batch completed at once (untimed) so the claim"
                + " head moves: " + claims + " claims per run after " + WARMUP
                + " unmeasured ones; points: pending rows only,"
                + " many pending rows, and pending rows above a large completed history (ids below the pending ones)."
                + " `baton`: `ClaimQueue.claim(10)`; `raw`: the hand-written claim statement(s) of the `claim`"
                + " workload. Value: p50 µs (lower is better).";
    }

    @Override
    public List<Point> points(Options options) {
        List<Point> points = new ArrayList<>();
        for (long[] s : scenarios) {
            points.add(new Point("rows", key(s), label(s)));
        }
        return points;
    }

    @Override
    public String unit() {
        return "p50 µs per claim";
    }

    @Override
    public boolean higherIsBetter() {
        return false;
    }

    @Override
    public int reps(Options o) {
        return Math.min(3, o.reps());
    }

    /** The point's x: rows in the table, plus one for the purging variant of the same table. */
    private static long key(long[] s) {
        return s[0] + s[1] + (s[2] > 0 ? 1 : 0);
    }

    private static String label(long[] s) {
        String rows =
                s[0] == 0 ? String.format("%,d pending", s[1]) : String.format("%,d pending + %,d done", s[1], s[0]);
        return s[2] > 0 ? rows + String.format(", purge of %,d rows every 100 ms running", s[2]) : rows;
    }

    @Override
    public boolean repeatsPointInPlace() {
        return true; // a 5-million-row table is built once per point, not per repetition
    }

    @Override
    public void prepare(Target target, Options options) {}

    @Override
    public Measurement run(Target target, String variant, Point point, Options o, Probe probe) throws Exception {
        long[] scenario = scenarioOf(point);
        if (builtHistory != scenario[0] || builtPending != scenario[1]) {
            JobTable.create(target, scenario[0], (int) scenario[1]);
            builtHistory = scenario[0];
            builtPending = scenario[1];
        } else {
            reset(target, scenario[0]);
        }
        probe.quiesce(JobTable.NAME);
        Baton baton = Baton.using(target.pool());
        ClaimQueue<BatonDrainer.Job> queue = BatonDrainer.queue(baton);
        Latency latency = new Latency();
        boolean pg = target.kind() == Target.Kind.POSTGRES;
        Purge purge = scenario[2] > 0 ? new Purge(target, scenario[2], purgedBelow) : null;
        try (Connection c = target.pool().getConnection()) {
            c.setTransactionIsolation(Connection.TRANSACTION_READ_COMMITTED);
            for (int i = 0; i < WARMUP + claims; i++) {
                if (i == WARMUP) {
                    if (purge != null) {
                        purge.start();
                    }
                    probe.begin();
                }
                long t0 = System.nanoTime();
                List<Long> ids = variant.equals("baton") ? batonClaim(queue) : rawClaim(c, pg);
                long t1 = System.nanoTime();
                if (i >= WARMUP) {
                    latency.record(t1 - t0);
                }
                if (ids.size() != 10) {
                    throw new IllegalStateException("expected 10 rows, claimed " + ids.size());
                }
                finish(target, ids);
            }
            probe.end();
        } finally {
            if (purge != null) {
                purge.stop();
                purgedBelow = purge.next;
            }
        }
        Latency.Summary s = latency.summary();
        p50s.computeIfAbsent(variant + " " + point.x(), k -> new ArrayList<>()).add(s.p50Micros());
        String check = "ok: every claim returned 10 rows";
        if (purge != null) {
            purgeRates.computeIfAbsent(variant, k -> new ArrayList<>()).add(purge.rowsPerSecond());
            check += String.format(
                    java.util.Locale.ROOT,
                    "; purge deleted %,d rows (%,.0f rows/s) during the run",
                    purge.deleted,
                    purge.rowsPerSecond());
        }
        return new Measurement(claims, 0, s.p50Micros(), s, 0, check, Double.NaN, Double.NaN);
    }

    /** Completed rows below this id were deleted by a purging run: the next run's purge goes on from there. */
    private long purgedBelow;

    /**
     * Deletes completed rows in id ranges of {@code batch}, oldest first, one autocommit statement every 100 ms, until
     * stopped: the batched purge a host runs on a queue table (Baton's {@code Outbox.purgeDelivered} purges its own
     * table the same way).
     */
    private static final class Purge {
        private static final long PURGE_INTERVAL_NANOS = 100_000_000;

        private final Target target;
        private final long batch;
        private volatile boolean running = true;
        private Thread thread;
        private long startNanos;
        private long endNanos;
        long next;
        long deleted;
        private volatile Exception failure;

        Purge(Target target, long batch, long from) {
            this.target = target;
            this.batch = batch;
            this.next = Math.max(1, from);
        }

        void start() {
            startNanos = System.nanoTime();
            thread = new Thread(
                    () -> {
                        try (Connection c = target.pool().getConnection();
                                PreparedStatement ps = c.prepareStatement(
                                        "DELETE FROM " + JobTable.NAME + " WHERE id >= ? AND id < ? AND state = 2")) {
                            while (running) {
                                long t0 = System.nanoTime();
                                ps.setLong(1, next);
                                ps.setLong(2, next + batch);
                                deleted += ps.executeUpdate();
                                next += batch;
                                // paced: one batch per interval, so every run purges beside the claims and 10 M rows
                                // last all repetitions (a purge at full speed empties the table in seconds)
                                long left = PURGE_INTERVAL_NANOS - (System.nanoTime() - t0);
                                if (left > 0) {
                                    Thread.sleep(left / 1_000_000, (int) (left % 1_000_000));
                                }
                            }
                        } catch (Exception e) {
                            failure = e;
                        }
                    },
                    "bench-purge");
            thread.start();
        }

        void stop() throws Exception {
            running = false;
            if (thread != null) {
                thread.join();
            }
            endNanos = System.nanoTime();
            if (failure != null) {
                throw failure;
            }
        }

        double rowsPerSecond() {
            return deleted / ((endNanos - startNanos) / 1e9);
        }
    }

    private static List<Long> batonClaim(ClaimQueue<BatonDrainer.Job> queue) {
        List<Long> ids = new ArrayList<>();
        for (ClaimedRow<BatonDrainer.Job> r : queue.claim(10)) {
            ids.add(((Number) r.id()).longValue());
        }
        return ids;
    }

    private static List<Long> rawClaim(Connection c, boolean pg) throws Exception {
        long token = (ThreadLocalRandom.current().nextLong() >>> 1) + 1;
        if (pg) {
            c.setAutoCommit(true);
            List<Long> ids = new ArrayList<>();
            try (PreparedStatement ps = c.prepareStatement("WITH c AS MATERIALIZED (SELECT id FROM " + JobTable.NAME
                    + " WHERE state = 0 AND (next_attempt_at IS NULL OR next_attempt_at <= clock_timestamp()) ORDER BY"
                    + " id LIMIT 10 FOR NO KEY UPDATE SKIP LOCKED) UPDATE " + JobTable.NAME + " t SET state = 1,"
                    + " lease_until = clock_timestamp() + interval '300 seconds', claim_token = ?, attempts ="
                    + " t.attempts + 1 FROM c WHERE t.id = c.id AND t.state = 0 RETURNING t.id")) {
                ps.setLong(1, token);
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        ids.add(rs.getLong(1));
                    }
                }
            }
            return ids;
        }
        c.setAutoCommit(false);
        List<Long> ids = new ArrayList<>();
        try (PreparedStatement ps = c.prepareStatement("SELECT id FROM " + JobTable.NAME + " WHERE state = 0 AND"
                + " (next_attempt_at IS NULL OR next_attempt_at <= CURRENT_TIMESTAMP(6)) ORDER BY state, id LIMIT 10"
                + " FOR UPDATE SKIP LOCKED")) {
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    ids.add(rs.getLong(1));
                }
            }
        }
        try (PreparedStatement ps = c.prepareStatement("UPDATE " + JobTable.NAME + " SET state = 1, lease_until ="
                + " TIMESTAMPADD(MICROSECOND, 300000000, CURRENT_TIMESTAMP(6)), claim_token = ?, attempts = attempts"
                + " + 1 WHERE id IN (" + String.join(", ", java.util.Collections.nCopies(ids.size(), "?"))
                + ") AND state = 0")) {
            ps.setLong(1, token);
            for (int i = 0; i < ids.size(); i++) {
                ps.setLong(i + 2, ids.get(i));
            }
            ps.executeUpdate();
        }
        c.commit();
        c.setAutoCommit(true);
        return ids;
    }

    /** Completes the claimed rows (untimed), so the next claim starts further along. */
    private static void finish(Target target, List<Long> ids) throws Exception {
        try (Connection c = target.pool().getConnection();
                Statement st = c.createStatement()) {
            StringBuilder in = new StringBuilder();
            for (long id : ids) {
                in.append(in.length() == 0 ? "" : ", ").append(id);
            }
            st.executeUpdate("UPDATE " + JobTable.NAME + " SET state = 2, lease_until = NULL WHERE id IN (" + in + ")");
        }
    }

    private static void reset(Target target, long history) throws Exception {
        try (Connection c = target.pool().getConnection();
                Statement st = c.createStatement()) {
            st.executeUpdate("UPDATE " + JobTable.NAME + " SET state = 0, attempts = 0, lease_until = NULL,"
                    + " claim_token = NULL WHERE id > " + history + " AND state <> 0");
        }
    }

    private long[] scenarioOf(Point point) {
        for (long[] s : scenarios) {
            if (key(s) == point.x()) {
                return s;
            }
        }
        throw new IllegalArgumentException("no scenario " + point);
    }

    /**
     * Baton's median p50 with many pending rows, and above a large history, against the small case; the claim
     * stays an index range scan while each is within {@value #GROWTH_TARGET}×.
     */
    @Override
    public String finish(Target target) throws Exception {
        JobTable.drop(target);
        builtHistory = -1;
        builtPending = -1;
        purgedBelow = 0;
        StringBuilder line = new StringBuilder(target.name() + " " + name + " growth (Baton p50, median of runs): ");
        List<Double> base = p50s.get("baton " + key(scenarios[0]));
        if (base == null) {
            return "";
        }
        double small = dev.baton.bench.Stats.median(base);
        line.append(String.format(java.util.Locale.ROOT, "%.0f µs at %,d pending", small, scenarios[0][1]));
        boolean met = true;
        for (int i = 1; i < scenarios.length; i++) {
            List<Double> v = p50s.get("baton " + key(scenarios[i]));
            if (v == null) {
                continue;
            }
            double growth = dev.baton.bench.Stats.median(v) / small;
            met &= growth <= GROWTH_TARGET;
            line.append(String.format(
                    java.util.Locale.ROOT,
                    "; %s: %.0f µs (%.2f×)",
                    label(scenarios[i]),
                    dev.baton.bench.Stats.median(v),
                    growth));
        }
        p50s.clear();
        List<Double> rates = purgeRates.get("baton");
        if (rates != null) {
            line.append(String.format(
                    java.util.Locale.ROOT,
                    "; the purge deleted a median %,.0f rows/s beside Baton's claims",
                    dev.baton.bench.Stats.median(rates)));
        }
        purgeRates.clear();
        return line.append(String.format(
                        java.util.Locale.ROOT, "; target ≤ %.1f×: %s", GROWTH_TARGET, met ? "met" : "missed"))
                .toString();
    }

    private static final double GROWTH_TARGET = 1.3;
}
