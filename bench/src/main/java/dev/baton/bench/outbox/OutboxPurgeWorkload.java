package dev.baton.bench.outbox;

import dev.baton.Baton;
import dev.baton.BulkResult;
import dev.baton.Outbox;
import dev.baton.bench.Latency;
import dev.baton.bench.Measurement;
import dev.baton.bench.Options;
import dev.baton.bench.Point;
import dev.baton.bench.Probe;
import dev.baton.bench.Target;
import dev.baton.bench.Workload;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * {@code Outbox.purgeDelivered} on an outbox of {@code days} million delivered messages, one
 * million per day of age, with 10,000 pending messages above them. Each point purges the oldest remaining day
 * (rows/s), in order, on the same table: a purge whose cost grows with what it already deleted (dead index entries
 * scanned again by every batch) shows as falling rows/s from day to day. After each day, the latency of the outbox's
 * claim of the pending messages (10-row claims, released at once) is taken, to show whether the purge's leftovers slow
 * dispatch down.
 */
public final class OutboxPurgeWorkload implements Workload {
    private static final int PER_DAY = 1_000_000;
    private static final int PENDING = 10_000;
    private static final String TABLE = "baton_bench_outbox_purge";

    private final int days;
    private final List<String> lines = new ArrayList<>();

    /** {@code days} million delivered messages, purged a day (a million) per point. */
    public OutboxPurgeWorkload(int days) {
        this.days = days;
    }

    @Override
    public String name() {
        return "outbox-purge";
    }

    @Override
    public String description(Options o) {
        return "`Outbox.purgeDelivered(age)` (500 rows per statement, each in its own transaction) on an outbox of "
                + days + " million delivered messages, a million per day of age, and " + PENDING
                + " pending ones; each point purges the oldest remaining day, in order, on the same table. Value:"
                + " rows deleted per second (higher is better); the latency column is the claim of 10 pending"
                + " messages afterwards.";
    }

    @Override
    public List<String> variants(Target target) {
        return List.of("baton");
    }

    @Override
    public List<Ratio> ratios() {
        return List.of();
    }

    @Override
    public List<Point> points(Options options) {
        List<Point> points = new ArrayList<>();
        for (int d = 1; d <= days; d++) {
            points.add(new Point(
                    "day",
                    d,
                    String.format(
                            Locale.ROOT,
                            "day %d of %d (%,d rows left before)",
                            d,
                            days,
                            (long) (days - d + 1) * PER_DAY)));
        }
        return points;
    }

    @Override
    public String unit() {
        return "rows/s purged";
    }

    @Override
    public int reps(Options o) {
        return 1; // each point deletes its day: it cannot run twice on the same table
    }

    @Override
    public boolean repeatsPointInPlace() {
        return true;
    }

    @Override
    public void prepare(Target target, Options options) throws Exception {
        boolean pg = target.kind() == Target.Kind.POSTGRES;
        try (Connection c = target.pool().getConnection();
                Statement st = c.createStatement()) {
            st.execute("DROP TABLE IF EXISTS " + TABLE);
            for (String sql : Baton.using(target.pool()).ownTables().outboxDdl(TABLE)) {
                st.execute(sql);
            }
            String columns = " (id, topic, msg_key, payload, status, attempts, created_at)";
            long total = (long) days * PER_DAY;
            for (long from = 1; from <= total; from += 500_000) {
                long to = Math.min(total, from + 499_999);
                // day d (1 = oldest) is ids (d-1)*PER_DAY+1 .. d*PER_DAY, created (days - d + 1) days and 1 hour ago
                st.execute(
                        pg
                                ? "INSERT INTO " + TABLE + columns
                                        + " SELECT g, 'bench', 'k' || (g % 64), convert_to(repeat('x', "
                                        + Ledger.PAYLOAD_BYTES
                                        + "), 'UTF8'), 2, 1, clock_timestamp() - make_interval(days => "
                                        + days + " - ((g - 1) / " + PER_DAY
                                        + ")::int, hours => 1) FROM generate_series(" + from
                                        + ", " + to + ") g"
                                : "INSERT INTO " + TABLE + columns
                                        + " SELECT seq, 'bench', CONCAT('k', seq % 64), REPEAT('x', "
                                        + Ledger.PAYLOAD_BYTES + "), 2, 1, TIMESTAMPADD(HOUR, -1, TIMESTAMPADD(DAY, -("
                                        + days
                                        + " - FLOOR((seq - 1) / " + PER_DAY + ")), UTC_TIMESTAMP(6))) FROM seq_" + from
                                        + "_to_"
                                        + to);
            }
            long first = total + 1;
            st.execute(
                    pg
                            ? "INSERT INTO " + TABLE + columns
                                    + " SELECT g, 'bench', 'k' || (g % 64), convert_to(repeat('x', "
                                    + Ledger.PAYLOAD_BYTES + "), 'UTF8'), 0, 0, clock_timestamp() FROM generate_series("
                                    + first
                                    + ", " + (total + PENDING) + ") g"
                            : "INSERT INTO " + TABLE + columns
                                    + " SELECT seq, 'bench', CONCAT('k', seq % 64), REPEAT('x', "
                                    + Ledger.PAYLOAD_BYTES + "), 0, 0, UTC_TIMESTAMP(6) FROM seq_" + first + "_to_"
                                    + (total + PENDING));
            st.execute(pg ? "VACUUM ANALYZE " + TABLE : "ANALYZE TABLE " + TABLE);
        }
    }

    @Override
    public Measurement run(Target target, String variant, Point point, Options o, Probe probe) throws Exception {
        Outbox outbox = Baton.using(target.pool()).outbox(TABLE);
        int day = (int) point.x();
        // this day's rows are (days - day + 1) days and an hour old, the next day's (days - day) days and an hour
        Duration age = Duration.ofDays(days - day).plusMinutes(90);
        probe.begin();
        long t0 = System.nanoTime();
        BulkResult purged = outbox.purgeDelivered(age);
        double seconds = (System.nanoTime() - t0) / 1e9;
        probe.end();
        Latency claims = claimLatency(target, outbox);
        Latency.Summary s = claims.summary();
        long failures = purged.rows() == PER_DAY ? 0 : 1;
        String check = String.format(
                Locale.ROOT,
                "%s: %,d rows in %,d statements, %.1f s; claim of 10 pending afterwards p50 %.0f µs",
                failures == 0 ? "ok" : "WRONG COUNT",
                purged.rows(),
                purged.batches(),
                seconds,
                s.p50Micros());
        lines.add(String.format(
                Locale.ROOT, "day %d: %,.0f rows/s, claim p50 %.0f µs", day, purged.rows() / seconds, s.p50Micros()));
        return new Measurement(
                purged.rows(), seconds, purged.rows() / seconds, s, failures, check, Double.NaN, Double.NaN);
    }

    /** 200 claims of 10 pending messages by the outbox's own claim, each set pending again at once, untimed. */
    private static Latency claimLatency(Target target, Outbox outbox) throws Exception {
        Latency latency = new Latency();
        for (int i = 0; i < 200; i++) {
            long t0 = System.nanoTime();
            int n = outbox.queue().claim(10).size();
            latency.record(System.nanoTime() - t0);
            if (n != 10) {
                throw new IllegalStateException("claimed " + n + " pending messages, not 10");
            }
            try (Connection c = target.pool().getConnection();
                    Statement st = c.createStatement()) {
                st.executeUpdate("UPDATE " + TABLE + " SET status = 0, attempts = 0 WHERE status = 1");
            }
        }
        return latency;
    }

    @Override
    public String finish(Target target) throws Exception {
        try (Connection c = target.pool().getConnection();
                Statement st = c.createStatement()) {
            st.execute("DROP TABLE IF EXISTS " + TABLE);
        }
        String line = target.name() + " outbox purge by day: " + String.join("; ", lines);
        lines.clear();
        return line;
    }
}
