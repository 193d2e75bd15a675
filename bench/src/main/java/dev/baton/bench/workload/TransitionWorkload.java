package dev.baton.bench.workload;

import dev.baton.Baton;
import dev.baton.StateMachine;
import dev.baton.StateTable;
import dev.baton.TransitionResult;
import dev.baton.bench.ClosedLoop;
import dev.baton.bench.Measurement;
import dev.baton.bench.Options;
import dev.baton.bench.Point;
import dev.baton.bench.Probe;
import dev.baton.bench.Target;
import dev.baton.bench.Workload;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import javax.sql.DataSource;

/**
 * Workload 1: guarded single-row transitions per second, Baton against hand-written JDBC doing the same statement.
 *
 * <p>Table {@value #TABLE} has the shape of a typical hand-written state table: {@code id BIGINT} primary key, {@code status
 * VARCHAR(16)}, {@code version}, {@code updated_at}, and an index on {@code (status, id)}. Each of c threads owns the
 * ids {@code ≡ w (mod c)}, picks one at random, knows its state, and moves it one step along Pending → Processing →
 * Completed → Pending, so every statement must change exactly one row; a statement that does not is a failure (the
 * thread then re-reads the row and goes on). Both variants run on the same pool, in autocommit mode, one statement and
 * one commit per transition, on a connection taken from the pool and returned for each transition.
 */
public final class TransitionWorkload implements Workload {
    /** The table, created and dropped by this workload. */
    public static final String TABLE = "baton_bench_cas";

    /**
     * The hand-written statements the raw variant may use, one of which must be Baton's statement letter for letter
     * (quotes aside), for every source state; the first that matches is used. Baton renders the source state as a
     * literal (so the planner sees the state; one statement text per source state) or, in earlier versions, as a bind
     * parameter. On MySQL and MariaDB, Baton's guard on a string state column also compares the bytes (the default
     * collation ignores case and trailing spaces); the hand-written variant then has the same guard.
     */
    enum RawForm {
        /** {@code status = 'Pending'}. */
        LITERAL("status = '%1$s'", 0),
        /** {@code status = 'Pending' AND CAST(status AS BINARY) = 'Pending'}. */
        LITERAL_EXACT("status = '%1$s' AND CAST(status AS BINARY) = '%1$s'", 0),
        /**
         * {@code status = 'Pending' AND CAST(CONVERT(status USING utf8mb4) AS BINARY) = 'Pending'} (MariaDB since the
         * byte comparison converts the column to the connection's character set first).
         */
        LITERAL_EXACT_UTF8("status = '%1$s' AND CAST(CONVERT(status USING utf8mb4) AS BINARY) = '%1$s'", 0),
        /** {@code status = ?}. */
        BIND("status = ?", 1),
        /** {@code status = ? AND CAST(status AS BINARY) = ?}. */
        BIND_EXACT("status = ? AND CAST(status AS BINARY) = ?", 2);

        final String guard;
        final int guardBinds;

        RawForm(String guard, int guardBinds) {
            this.guard = guard;
            this.guardBinds = guardBinds;
        }

        String sql(Cas from) {
            return "UPDATE " + TABLE + " SET status = ? WHERE id = ? AND " + String.format(guard, from.code);
        }
    }

    /** States of the benchmark rows, stored as their names. */
    enum Cas {
        PENDING("Pending"),
        PROCESSING("Processing"),
        COMPLETED("Completed");

        final String code;

        Cas(String code) {
            this.code = code;
        }

        Cas next() {
            return values()[(ordinal() + 1) % 3];
        }

        static Cas ofCode(String code) {
            for (Cas c : values()) {
                if (c.code.equals(code)) {
                    return c;
                }
            }
            throw new IllegalStateException("unexpected status " + code);
        }
    }

    static final StateMachine<Cas> MACHINE = StateMachine.of(Cas.class)
            .name("bench_cas")
            .storedAs(s -> s.code)
            .allow(Cas.PENDING, Cas.PROCESSING)
            .allow(Cas.PROCESSING, Cas.COMPLETED)
            .allow(Cas.COMPLETED, Cas.PENDING)
            .initial(Cas.PENDING)
            .build();

    /** Length of one slice when the variants are interleaved. */
    static final double SLICE_SECONDS = 0.2;

    private final Map<String, Prepared> prepared = new HashMap<>();
    private final boolean mixed;

    /**
     * The workload.
     *
     * @param mixed false: {@code transition}, throughput of each variant (whole runs or slices); true:
     *     {@code transition-mixed}, every thread alternates Baton and raw operation by operation, and each variant's
     *     value is c / the mean latency of its fastest 99 % of operations
     */
    public TransitionWorkload(boolean mixed) {
        this.mixed = mixed;
    }

    /** Per-target state: the binding, the SQL of the raw variant, and what every row's state is now. */
    private static final class Prepared {
        StateTable<Cas> table;
        RawForm form;
        String[] rawSql; // by source state's ordinal
        byte[] states; // index = id; written only by the thread owning the id, read after join
        int rows;
        String batonSql;
    }

    @Override
    public String name() {
        return mixed ? "transition-mixed" : "transition";
    }

    @Override
    public String description(Options o) {
        StringBuilder sb = new StringBuilder();
        if (mixed) {
            sb.append("The same work as `transition`, but every thread alternates Baton and raw operation by")
                    .append(" operation, so both see exactly the same database, load and steal at every moment;")
                    .append(" the most precise comparison of what one Baton transition costs against one")
                    .append(" hand-written transition. Value = c / mean latency of that variant's fastest 99 % of")
                    .append(" operations (the throughput c threads would reach at that latency; the slowest 1 % are")
                    .append(" stalls caused by other tenants, which fall on either variant at random and at c=1")
                    .append(
                            " would dominate the mean of a short run). Client CPU µs/op: the thread CPU time (user + system, so")
                    .append(" the driver's socket calls too) of each operation, taken around every operation of both")
                    .append(" variants; client bytes/op: what the thread allocated (JVM thread allocation")
                    .append(" counter), likewise. ")
                    .append(o.warmupSeconds())
                    .append(" s warm-up, ")
                    .append(o.measureSeconds())
                    .append(" s measured per run. Same table, SQL and verification as `transition`.\n");
            return sb.toString();
        }
        sb.append("Guarded single-row transitions, one statement and one durable commit each (autocommit), at each")
                .append(" concurrency. `baton`: `StateTable.transition(id, from, to).apply()` on the pool.")
                .append(" `raw`: hand-written JDBC on the same pool: take a connection, `prepareStatement`, bind,")
                .append(" `executeUpdate`, close, with the same SQL text (checked at start-up against")
                .append(" `Transition.sql()`). Table `")
                .append(TABLE)
                .append("`: ")
                .append(String.format("%,d", o.rows()))
                .append(
                        " rows, a typical hand-written state table (`id` BIGINT primary key, `status` VARCHAR(16), index on")
                .append(" `(status, id)`). Each of c threads owns the ids ≡ w (mod c), picks one at random and moves")
                .append(" it one step along Pending → Processing → Completed → Pending, so every statement must")
                .append(" change exactly one row. ")
                .append(
                        o.slices()
                                ? "Baton and raw share each timed run, all threads switching between them every "
                                        + (int) (SLICE_SECONDS * 1000)
                                        + " ms (A B B A …), so load from other tenants falls on"
                                        + " both alike: "
                                : "One timed run per variant: ")
                .append(o.warmupSeconds())
                .append(" s warm-up, then ")
                .append(o.measureSeconds())
                .append(
                        " s measured per variant. Verified after every run (failed CAS = 0, per-state row counts equal the")
                .append(" threads' bookkeeping) and row by row at the end.\n\n");
        for (Map.Entry<String, Prepared> e : prepared.entrySet()) {
            sb.append("- ")
                    .append(e.getKey())
                    .append(": Baton `")
                    .append(e.getValue().batonSql)
                    .append("`; raw `")
                    .append(e.getValue().rawSql[0])
                    .append("` (and the same for the other source states)\n");
        }
        return sb.toString();
    }

    @Override
    public List<Point> points(Options o) {
        List<Point> points = new ArrayList<>();
        for (int c : o.concurrency()) {
            points.add(new Point("concurrency", c, "c=" + c));
        }
        return points;
    }

    @Override
    public String unit() {
        return mixed ? "transitions/s (c / mean latency of fastest 99 %)" : "transitions/s";
    }

    @Override
    public void prepare(Target target, Options o) throws Exception {
        Prepared p = new Prepared();
        p.rows = o.rows();
        p.states = new byte[p.rows + 1];
        boolean pg = target.kind() == Target.Kind.POSTGRES;
        try (Connection c = target.pool().getConnection();
                Statement st = c.createStatement()) {
            st.execute("DROP TABLE IF EXISTS " + TABLE);
            st.execute("CREATE TABLE " + TABLE + " (id BIGINT NOT NULL PRIMARY KEY, status VARCHAR(16) NOT NULL,"
                    + " version INT NOT NULL DEFAULT 0, updated_at " + (pg ? "TIMESTAMPTZ" : "TIMESTAMP(6) NULL")
                    + ")");
            c.setAutoCommit(false);
            for (int from = 1; from <= p.rows; from += 1000) {
                StringBuilder sql = new StringBuilder("INSERT INTO " + TABLE + " (id, status) VALUES ");
                for (int id = from; id < from + 1000 && id <= p.rows; id++) {
                    sql.append(id == from ? "" : ",").append('(').append(id).append(",'Pending')");
                }
                st.execute(sql.toString());
            }
            c.commit();
            c.setAutoCommit(true);
            st.execute("CREATE INDEX " + TABLE + "_status_id ON " + TABLE + " (status, id)");
            st.execute(pg ? "VACUUM ANALYZE " + TABLE : "ANALYZE TABLE " + TABLE);
        }
        Baton baton = Baton.using(target.pool());
        p.table = baton.table(TABLE).id("id").state("status", MACHINE);
        p.table.verify();
        p.batonSql = p.table.transition(1L, Cas.PENDING, Cas.PROCESSING).sql();
        for (RawForm form : RawForm.values()) {
            boolean all = true;
            for (Cas from : Cas.values()) {
                String rendered = p.table.transition(1L, from, from.next()).sql();
                all &= rendered.replace("\"", "").replace("`", "").equals(form.sql(from));
            }
            if (all) {
                p.form = form;
                break;
            }
        }
        if (p.form == null) {
            throw new IllegalStateException("Baton's transition SQL changed; update the hand-written variant"
                    + " (TransitionWorkload.RawForm) to do the same work.\n  Baton: " + p.batonSql);
        }
        p.rawSql = new String[Cas.values().length];
        for (Cas from : Cas.values()) {
            p.rawSql[from.ordinal()] = p.form.sql(from);
        }
        prepared.put(target.name(), p);
        // JIT warm-up of both paths (and of the driver), unrecorded
        int c = Math.min(
                4, o.concurrency().stream().mapToInt(Integer::intValue).max().orElse(1));
        for (String v : variants(target)) {
            ClosedLoop.run(c, (x, w) -> step(target, p, v, w, c), 0, o.jitWarmupSeconds(), null);
        }
    }

    @Override
    public Measurement run(Target target, String variant, Point point, Options o, Probe probe) throws Exception {
        return runInterleaved(target, List.of(variant), point, o, probe).get(0);
    }

    @Override
    public boolean canInterleave() {
        return true;
    }

    @Override
    public boolean interleavesOnly() {
        return mixed;
    }

    @Override
    public List<Measurement> runInterleaved(Target target, List<String> variants, Point point, Options o, Probe probe)
            throws Exception {
        Prepared p = prepared.get(target.name());
        int c = (int) point.x();
        probe.quiesce(TABLE);
        List<ClosedLoop.Result> rs = ClosedLoop.run(
                c,
                variants.size(),
                (v, w) -> step(target, p, variants.get(v), w, c),
                o.warmupSeconds(),
                o.measureSeconds(),
                mixed ? 0 : SLICE_SECONDS,
                mixed,
                probe);
        String check = checkCounts(target, p);
        List<Measurement> out = new ArrayList<>();
        for (ClosedLoop.Result r : rs) {
            long failures = r.failures() + (check.startsWith("ok") ? 0 : 1);
            String text = (r.failures() == 0 ? "" : r.failures() + " failed CAS; ") + check + " (" + r.allOps()
                    + " statements" + (variants.size() > 1 ? " of this variant" : "") + ")";
            out.add(
                    mixed
                            ? new Measurement(
                                    r.ops(),
                                    r.seconds(),
                                    c * 1e6 / r.latency().trimmedMeanMicros(),
                                    r.latency(),
                                    failures,
                                    text + String.format(java.util.Locale.ROOT, ", %.0f/s", r.ops() / r.seconds()),
                                    r.cpuMicrosPerOp(),
                                    r.allocatedBytesPerOp())
                            : Measurement.throughput(r.ops(), r.seconds(), r.latency(), failures, text));
        }
        return out;
    }

    private static ClosedLoop.Step step(Target target, Prepared p, String variant, int w, int c) {
        // a different sequence per variant: in the mixed run, raw must not always hit the row Baton just moved
        SplittableRandom random = new SplittableRandom(31L * w + c + 1_000_003L * variant.hashCode());
        int owned = (p.rows - w + c - 1) / c;
        DataSource ds = target.pool();
        boolean baton = variant.equals("baton");
        return () -> {
            long id = w + 1 + (long) c * random.nextInt(owned);
            Cas from = Cas.values()[p.states[(int) id]];
            Cas to = from.next();
            boolean ok = baton ? viaBaton(p, id, from, to) : viaRaw(ds, p, id, from, to);
            if (ok) {
                p.states[(int) id] = (byte) to.ordinal();
            } else {
                p.states[(int) id] = (byte) read(ds, id).ordinal();
            }
            return ok;
        };
    }

    private static boolean viaBaton(Prepared p, long id, Cas from, Cas to) {
        return p.table.transition(id, from, to).apply() instanceof TransitionResult.Applied<Cas>;
    }

    /** What an application would write by hand: one connection from the pool, one prepared UPDATE, autocommit. */
    private static boolean viaRaw(DataSource ds, Prepared p, long id, Cas from, Cas to) throws SQLException {
        try (Connection c = ds.getConnection();
                PreparedStatement ps = c.prepareStatement(p.rawSql[from.ordinal()])) {
            ps.setString(1, to.code);
            ps.setLong(2, id);
            for (int i = 0; i < p.form.guardBinds; i++) {
                ps.setString(3 + i, from.code);
            }
            return ps.executeUpdate() == 1;
        }
    }

    private static Cas read(DataSource ds, long id) throws SQLException {
        try (Connection c = ds.getConnection();
                PreparedStatement ps = c.prepareStatement("SELECT status FROM " + TABLE + " WHERE id = ?")) {
            ps.setLong(1, id);
            try (ResultSet rs = ps.executeQuery()) {
                if (!rs.next()) {
                    throw new IllegalStateException("row " + id + " vanished");
                }
                return Cas.ofCode(rs.getString(1));
            }
        }
    }

    /** Per-state row counts in the database against the threads' bookkeeping. */
    private static String checkCounts(Target target, Prepared p) throws SQLException {
        long[] expected = new long[3];
        for (int id = 1; id <= p.rows; id++) {
            expected[p.states[id]]++;
        }
        long[] actual = new long[3];
        try (Connection c = target.pool().getConnection();
                Statement st = c.createStatement();
                ResultSet rs = st.executeQuery("SELECT status, count(*) FROM " + TABLE + " GROUP BY status")) {
            while (rs.next()) {
                actual[Cas.ofCode(rs.getString(1)).ordinal()] = rs.getLong(2);
            }
        }
        String counts = "Pending/Processing/Completed " + actual[0] + "/" + actual[1] + "/" + actual[2];
        return java.util.Arrays.equals(expected, actual)
                ? "ok: " + counts
                : "MISMATCH: " + counts + ", expected " + expected[0] + "/" + expected[1] + "/" + expected[2];
    }

    /** Compares every row with the bookkeeping, then drops the table. */
    @Override
    public String finish(Target target) throws Exception {
        Prepared p = prepared.get(target.name());
        long mismatches = 0;
        long seen = 0;
        try (Connection c = target.pool().getConnection();
                Statement st = c.createStatement()) {
            try (ResultSet rs = st.executeQuery("SELECT id, status FROM " + TABLE)) {
                while (rs.next()) {
                    seen++;
                    if (Cas.ofCode(rs.getString(2)).ordinal() != p.states[(int) rs.getLong(1)]) {
                        mismatches++;
                    }
                }
            }
            st.execute("DROP TABLE " + TABLE);
        }
        return target.name() + " / " + name() + ": final row-by-row check of " + TABLE + ": " + seen + " rows, "
                + mismatches + " differ from the threads' bookkeeping"
                + (seen == p.rows && mismatches == 0 ? " (ok)" : " (FAILED)");
    }
}
