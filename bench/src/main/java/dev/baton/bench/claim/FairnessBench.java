package dev.baton.bench.claim;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.baton.Baton;
import dev.baton.ClaimQueue;
import dev.baton.ClaimQueueBuilder;
import dev.baton.Outcome;
import dev.baton.Worker;
import dev.baton.bench.report.LineChart;
import dev.baton.spi.BatchUpdateSpec;
import dev.baton.spi.Dialect;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Fairness figure: one tenant holds a large backlog of eligible rows (1,000,000 by default), older than
 * those of 20 tenants with 10 rows each; a Worker drains the queue, and the bench records when each small tenant's row
 * reaches its handler. Today's claim (id order) against {@code fairAcross("tenant")}, alternating P F F P in one
 * invocation, on PostgreSQL and MariaDB; a run stops once every small row was served or at the cap, so an unfair run's
 * worst wait is a lower bound ("≥ cap"). Writes {@code summary.md}, {@code results.csv} and {@code fairness.png}.
 *
 * <pre>
 * java -cp 'bench/target/classes:bench/target/lib/*' dev.baton.bench.claim.FairnessBench --rows 1000000 --cap 60
 * </pre>
 */
public final class FairnessBench {
    private static final int SMALL_TENANTS = 20;
    private static final int SMALL_ROWS = 10;

    /** One run's result: the small rows' waits (ms, sorted; the cap for rows not served) and the rows handled. */
    record Run(
            String database,
            String variant,
            int rep,
            long bigRows,
            long[] waitsMs,
            int served,
            long handled,
            long elapsedMs,
            long[] claimMs) {
        long worst() {
            return waitsMs[waitsMs.length - 1];
        }

        long median() {
            return waitsMs[waitsMs.length / 2];
        }

        /** The median of the timed claims of 100 on the loaded table (-1 if none were timed). */
        long claimMedian() {
            if (claimMs.length == 0) {
                return -1;
            }
            long[] sorted = claimMs.clone();
            Arrays.sort(sorted);
            return sorted[sorted.length / 2];
        }
    }

    private FairnessBench() {}

    public static void main(String[] args) throws Exception {
        Map<String, String> opt = new LinkedHashMap<>();
        for (int i = 0; i + 1 < args.length; i += 2) {
            opt.put(args[i].replaceFirst("^--", ""), args[i + 1]);
        }
        long rows = Long.parseLong(opt.getOrDefault("rows", "1000000"));
        // MariaDB's default 128 MB buffer pool: draining a million-row backlog with four pollers filled it with lock
        // heaps and the adaptive hash index until InnoDB stopped the server (seen on 10.11); 100,000 rows by default
        long mariadbRows = Long.parseLong(opt.getOrDefault("mariadb-rows", "100000"));
        int cap = Integer.parseInt(opt.getOrDefault("cap", "60"));
        int reps = Integer.parseInt(opt.getOrDefault("reps", "2"));
        String table = opt.getOrDefault("table", "baton_bench_fair");
        String database = opt.getOrDefault("database", "test");
        // plain: today's claim (id order); fairAcross: the round-robin claim, read group by group; fairAcross-window:
        // the round-robin claim as it was before (one window ranking every eligible row), for comparison
        List<String> variants =
                Arrays.asList(opt.getOrDefault("variants", "plain,fairAcross").split(","));
        int timedClaims = Integer.parseInt(opt.getOrDefault("timed-claims", "0"));
        List<String> targets =
                Arrays.asList(opt.getOrDefault("targets", "postgres,mariadb").split(","));
        Path out = Paths.get(opt.getOrDefault(
                "out",
                "bench/results/" + LocalDateTime.now().format(DateTimeFormatter.ofPattern("yyyyMMdd")) + "-fairness"));
        Files.createDirectories(out);
        List<Run> runs = new ArrayList<>();
        Path csv = out.resolve("results.csv");
        Files.writeString(
                csv, "database,variant,rep,big_rows,served,worst_wait_ms,median_wait_ms,handled,elapsed_ms,claim_ms\n");
        for (String target : targets) {
            long big = target.equals("postgres") ? rows : mariadbRows;
            try (HikariDataSource pool = pool(target, database)) {
                for (int rep = 1; rep <= reps; rep++) {
                    // P F F P: each variant goes first once, so a load burst lands on both
                    List<String> order = new ArrayList<>(variants);
                    if (rep % 2 == 0) {
                        java.util.Collections.reverse(order);
                    }
                    for (String variant : order) {
                        load(pool, target, table, big, variant);
                        Run r = run(pool, target, table, variant, rep, cap, big, timedClaims);
                        runs.add(r);
                        Files.writeString(
                                csv,
                                String.join(
                                                ",",
                                                r.database(),
                                                r.variant(),
                                                "" + r.rep(),
                                                "" + big,
                                                "" + r.served(),
                                                "" + r.worst(),
                                                "" + r.median(),
                                                "" + r.handled(),
                                                "" + r.elapsedMs(),
                                                Arrays.stream(r.claimMs())
                                                        .mapToObj(Long::toString)
                                                        .collect(java.util.stream.Collectors.joining(" ")))
                                        + "\n",
                                StandardCharsets.UTF_8,
                                java.nio.file.StandardOpenOption.APPEND);
                        System.out.printf(
                                "%s %s rep %d: %d/%d small rows served, worst %d ms, median %d ms, %d rows handled"
                                        + " in %d ms; claims of 100 %s ms%n",
                                r.database(),
                                r.variant(),
                                rep,
                                r.served(),
                                SMALL_TENANTS * SMALL_ROWS,
                                r.worst(),
                                r.median(),
                                r.handled(),
                                r.elapsedMs(),
                                Arrays.toString(r.claimMs()));
                    }
                }
                try (Connection c = pool.getConnection();
                        Statement st = c.createStatement()) {
                    st.execute("DROP TABLE IF EXISTS " + table);
                }
            }
        }
        chart(runs, out.resolve("fairness.png"), cap);
        summary(runs, out.resolve("summary.md"), cap);
    }

    private static HikariDataSource pool(String target, String database) {
        HikariConfig c = new HikariConfig();
        if (target.equals("postgres")) {
            c.setJdbcUrl("jdbc:postgresql://127.0.0.1:5432/" + database);
            c.setUsername("postgres");
        } else {
            c.setJdbcUrl("jdbc:mariadb://127.0.0.1:3306/" + database);
            c.setUsername("root");
            c.setPassword("");
        }
        c.setMaximumPoolSize(8);
        return new HikariDataSource(c);
    }

    /** The big tenant's rows first (ids 1..rows), then 20 tenants × 10 rows, interleaved, all due. */
    private static void load(HikariDataSource pool, String target, String table, long rows, String variant)
            throws Exception {
        boolean pg = target.equals("postgres");
        String ts = pg ? "TIMESTAMPTZ" : "DATETIME(6) NULL";
        try (Connection c = pool.getConnection();
                Statement st = c.createStatement()) {
            st.execute("DROP TABLE IF EXISTS " + table);
            st.execute("CREATE TABLE " + table + " (id BIGINT NOT NULL PRIMARY KEY, state INT NOT NULL, tenant"
                    + " VARCHAR(20) NOT NULL, lease_until " + ts + ", claim_token BIGINT NULL, attempts INT NOT NULL"
                    + " DEFAULT 0, next_attempt_at " + ts + ", last_error VARCHAR(1000) NULL)");
            for (long from = 1; from <= rows; from += 500_000) {
                long to = Math.min(rows, from + 499_999);
                st.execute(
                        pg
                                ? "INSERT INTO " + table
                                        + " (id, state, tenant) SELECT g, 0, 'big' FROM generate_series(" + from + ", "
                                        + to + ") g"
                                : "INSERT INTO " + table + " (id, state, tenant) SELECT seq, 0, 'big' FROM seq_" + from
                                        + "_to_" + to);
            }
            long id = rows + 1;
            StringBuilder small = new StringBuilder("INSERT INTO " + table + " (id, state, tenant) VALUES ");
            for (int r = 0; r < SMALL_ROWS; r++) {
                for (int t = 0; t < SMALL_TENANTS; t++) {
                    small.append(id == rows + 1 ? "" : ", ")
                            .append("(")
                            .append(id++)
                            .append(", 0, 'small")
                            .append(t)
                            .append("')");
                }
            }
            st.execute(small.toString());
            // the index the variant's queue's suggestedIndex() names: state first (or partial on it), then the order;
            // the round-robin claim read group by group has the tenant before the order
            String columns = variant.equals("fairAcross") ? "tenant, id" : "id";
            st.execute(
                    pg
                            ? "CREATE INDEX " + table + "_claim ON " + table + " (" + columns
                                    + ") WHERE state IN (0, 1)"
                            : "CREATE INDEX " + table + "_claim ON " + table + " (state, " + columns + ")");
            st.execute(pg ? "VACUUM ANALYZE " + table : "ANALYZE TABLE " + table);
        }
    }

    private static Run run(
            HikariDataSource pool,
            String target,
            String table,
            String variant,
            int rep,
            int capSeconds,
            long bigRows,
            int timedClaims)
            throws Exception {
        boolean fair = !variant.equals("plain");
        Baton detected = Baton.using(pool);
        Baton baton = variant.equals("fairAcross-window")
                ? Baton.builder(pool).dialect(windowOnly(detected.dialect())).build()
                : detected;
        ClaimQueueBuilder<BatonDrainer.Job> b = baton.<BatonDrainer.Job>queue("fair-bench")
                .table(table)
                .claim("state", BatonDrainer.MACHINE, BatonDrainer.Job.PENDING, BatonDrainer.Job.PROCESSING)
                .deadState(BatonDrainer.Job.DEAD)
                .select("tenant")
                .lease(Duration.ofMinutes(5));
        if (fair) {
            b.fairAcross("tenant");
        }
        ClaimQueue<BatonDrainer.Job> q = b.build();
        if (variant.equals("fairAcross")) {
            q.verify(); // the index load() made is the one the claim needs
        }
        // claims of 100 on the loaded table, each rolled back: the claim's own time, before the Worker drains it
        long[] claimMs = new long[timedClaims];
        for (int i = 0; i < timedClaims; i++) {
            try (Connection c = pool.getConnection()) {
                c.setAutoCommit(false);
                long t0 = System.nanoTime();
                int got = q.claim(c, 100).size();
                claimMs[i] = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0);
                c.rollback();
                if (got != 100) {
                    throw new IllegalStateException("a timed claim took " + got + " rows");
                }
            }
        }
        ConcurrentLinkedQueue<Long> waits = new ConcurrentLinkedQueue<>();
        AtomicLong handled = new AtomicLong();
        long start = System.nanoTime();
        int small = SMALL_TENANTS * SMALL_ROWS;
        Worker worker = baton.worker(q)
                .batchSize(100)
                .concurrency(4)
                .pollInterval(Duration.ofMillis(10), Duration.ofMillis(100))
                .handle(row -> {
                    handled.incrementAndGet();
                    if (!"big".equals(row.get("tenant"))) {
                        waits.add(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start));
                    }
                    return Outcome.complete(BatonDrainer.Job.DONE);
                })
                .start();
        try {
            long deadline = start + TimeUnit.SECONDS.toNanos(capSeconds);
            while (waits.size() < small && System.nanoTime() < deadline) {
                Thread.sleep(20);
            }
        } finally {
            worker.close();
        }
        long elapsed = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        long[] w = new long[small];
        int served = 0;
        for (Long v : waits) {
            if (served < small) {
                w[served++] = v;
            }
        }
        for (int i = served; i < small; i++) {
            w[i] = capSeconds * 1000L; // not served within the cap: the cap is a lower bound of its wait
        }
        Arrays.sort(w);
        return new Run(target, variant, rep, bigRows, w, served, handled.get(), elapsed, claimMs);
    }

    /**
     * {@code d} with the round-robin claim rendered as before its bounded form: the spec without its
     * {@link BatchUpdateSpec#fairGroups()}, so the dialect runs the window over every eligible row.
     */
    static Dialect windowOnly(Dialect d) {
        return (Dialect) java.lang.reflect.Proxy.newProxyInstance(
                Dialect.class.getClassLoader(), new Class<?>[] {Dialect.class}, (proxy, method, args) -> {
                    if (method.getName().equals("batchUpdate") && args[0] instanceof BatchUpdateSpec s) {
                        args = new Object[] {withoutFairGroups(s)};
                    }
                    try {
                        return method.invoke(d, args);
                    } catch (java.lang.reflect.InvocationTargetException e) {
                        throw e.getCause();
                    }
                });
    }

    private static BatchUpdateSpec withoutFairGroups(BatchUpdateSpec s) {
        BatchUpdateSpec.Builder b = BatchUpdateSpec.builder(s.table(), s.idColumn())
                .where(s.where())
                .set(s.set())
                .limit(s.limit())
                .orderBy(s.orderBy())
                .returning(s.returning())
                .returningBeforeUpdate(s.returningBeforeUpdate());
        s.pickGuard().ifPresent(b::pickGuard);
        s.candidates().ifPresent(c -> b.ranked(c, s.rankedOrderBy()));
        return b.build();
    }

    private static void chart(List<Run> runs, Path file, int cap) throws IOException {
        LineChart chart = new LineChart(
                "Small tenants' waits behind a big backlog (sorted; plain runs stop at the " + cap + " s cap)",
                "the n-th small-tenant row served (of 200)",
                "wait (s)");
        int colour = 0;
        for (Run r : runs) {
            if (r.rep() != 1) {
                continue;
            }
            List<LineChart.P> points = new ArrayList<>();
            for (int rank : new int[] {1, 20, 50, 100, 150, 180, 200}) {
                double s = r.waitsMs()[rank - 1] / 1000.0;
                points.add(new LineChart.P(rank, s, s, s));
            }
            chart.add(new LineChart.Series(
                    r.database() + " " + r.variant(), colour++, r.variant().equals("plain"), points));
        }
        chart.write(file, 900, 500);
    }

    private static void summary(List<Run> runs, Path file, int cap) throws IOException {
        StringBuilder sb = new StringBuilder("# Fairness: 20 small tenants behind one big backlog\n\n");
        sb.append("One tenant with a backlog of eligible rows (ids first; the `big rows` column), 20 tenants with")
                .append(" 10 rows each (ids after); one Worker,")
                .append(" concurrency 4, batch 100, no-op handler; `plain` is the claim in id order, `fairAcross`")
                .append(" the round-robin claim read group by group (a loose index scan over the groups, then each")
                .append(" group's first rows), `fairAcross-window` the round-robin claim as before (one window ranking")
                .append(" every eligible row). Each variant's table has the index its queue's `suggestedIndex()`")
                .append(
                        " names (`fairAcross-window`: the one it named before, without the tenant), and `verify()` accepted the"
                                + " `fairAcross` one. `claim of 100` is the median of the timed claims of 100")
                .append(
                        " rows on the freshly loaded table (each rolled back), before the Worker starts. A wait is the time from the Worker's start to the row's handler; a")
                .append(" run ends when all 200 small rows were served or at the ")
                .append(cap)
                .append(" s cap (a row not served counts as the cap: a lower bound). With more than one repetition the")
                .append(" variants alternate (A B, B A).")
                .append(" The machine (2 cores) was shared with other sessions' builds and tests: busy.\n\n");
        sb.append("| database | big rows | variant | rep | claim of 100 | small rows served | worst wait |")
                .append(" median wait | rows handled | run |\n|---|---|---|---|---|---|---|---|---|---|\n");
        for (Run r : runs) {
            sb.append("| ")
                    .append(r.database())
                    .append(" | ")
                    .append(String.format("%,d", r.bigRows()))
                    .append(" | ")
                    .append(r.variant())
                    .append(" | ")
                    .append(r.rep())
                    .append(" | ")
                    .append(r.claimMedian() < 0 ? "–" : String.format("%,d ms", r.claimMedian()))
                    .append(" | ")
                    .append(r.served())
                    .append(" / 200 | ")
                    .append(r.served() < 200 ? "≥ " : "")
                    .append(String.format("%.2f s", r.worst() / 1000.0))
                    .append(" | ")
                    .append(String.format("%.2f s", r.median() / 1000.0))
                    .append(" | ")
                    .append(String.format("%,d", r.handled()))
                    .append(" | ")
                    .append(String.format("%.1f s", r.elapsedMs() / 1000.0))
                    .append(" |\n");
        }
        sb.append("\n![waits](fairness.png)\n");
        Files.writeString(file, sb.toString(), StandardCharsets.UTF_8);
    }
}
