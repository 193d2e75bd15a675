package dev.baton.bench.console;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.baton.Baton;
import dev.baton.ClaimQueue;
import dev.baton.DeadLetterQuery;
import dev.baton.StateMachine;
import dev.baton.console.BatonConsole;
import dev.baton.console.ConsoleRequest;
import dev.baton.console.ConsoleResponse;
import dev.baton.console.ConsoleUser;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Supplier;

/**
 * The console's dead-letter search at 1,000,000 dead rows, on the local PostgreSQL and MariaDB, each in a database of
 * its own ({@code console1m}, created by hand before and dropped after): the pages as {@link BatonConsole#handle}
 * answers them (no HTTP), the core reads alone, and the plans of the statements. Run by hand:
 *
 * <pre>
 * createdb -h 127.0.0.1 -U postgres console1m; mysql -h 127.0.0.1 -u root -e 'CREATE DATABASE console1m'
 * ./mvnw -B -q -pl bench -am install -DskipTests
 * java -cp "bench/target/classes:$(cat bench/target/classpath.txt)" dev.baton.bench.console.ConsoleMillionBench
 * </pre>
 */
public final class ConsoleMillionBench {
    enum St {
        PENDING,
        PROCESSING,
        DONE,
        FAILED
    }

    /** Stored as the ordinal: PENDING 0, PROCESSING 1, DONE 2, FAILED 3. */
    static final StateMachine<St> MACHINE = StateMachine.of(St.class)
            .storedAs(St::ordinal)
            .initial(St.PENDING)
            .allow(St.PENDING, St.PROCESSING)
            .allow(St.PROCESSING, St.DONE, St.FAILED, St.PENDING)
            .terminal(St.DONE, St.FAILED)
            .build();

    static final int ROWS = 1_000_000;
    static final int RUNS = 9;
    static final Instant T0 = Instant.parse("2026-11-20T00:00:00Z");

    public static void main(String[] args) throws Exception {
        String which = args.length > 0 ? args[0] : "both";
        if (!which.equals("mariadb")) {
            run("PostgreSQL", "jdbc:postgresql://127.0.0.1:5432/console1m?user=postgres", true);
        }
        if (!which.equals("postgres")) {
            run("MariaDB", "jdbc:mariadb://127.0.0.1:3306/console1m?user=root", false);
        }
    }

    static void run(String name, String url, boolean pg) throws Exception {
        HikariConfig cfg = new HikariConfig();
        cfg.setJdbcUrl(url);
        cfg.setMaximumPoolSize(4);
        try (HikariDataSource ds = new HikariDataSource(cfg)) {
            String ts = pg ? "TIMESTAMP(3)" : "DATETIME(3)";
            exec(ds, "DROP TABLE IF EXISTS dead_1m");
            exec(
                    ds,
                    "CREATE TABLE dead_1m (id BIGINT NOT NULL PRIMARY KEY, status INT NOT NULL, lease_until " + ts
                            + ", claim_token BIGINT NULL, attempts INT DEFAULT 0 NOT NULL, next_attempt_at " + ts
                            + ", last_error VARCHAR(1000) NULL, customer VARCHAR(40) NULL, died_at " + ts
                            + ", payload VARCHAR(300) NULL)");
            long t0 = System.nanoTime();
            // ids 1..1,000,000 dead (status 3), then 1,000 pending; 1 in 100 errors is a 422; 1,000 customers;
            // died_at one second apart from 2026-11-20 (so the ids grow with the time of death)
            String err = pg
                    ? "CASE WHEN g % 100 = 7 THEN 'receiver 422: card declined, order ' || g"
                            + " ELSE 'HTTP 500 from the receiver, attempt ' || g END"
                    : "CASE WHEN seq % 100 = 7 THEN CONCAT('receiver 422: card declined, order ', seq)"
                            + " ELSE CONCAT('HTTP 500 from the receiver, attempt ', seq) END";
            if (pg) {
                exec(
                        ds,
                        "INSERT INTO dead_1m (id, status, attempts, last_error, customer, died_at, payload) SELECT g,"
                                + " CASE WHEN g <= " + ROWS + " THEN 3 ELSE 0 END, 5, " + err + ", 'c-' || (g % 1000),"
                                + " TIMESTAMP '2026-11-20 00:00:00' + g * INTERVAL '1 second', '{\"order\":' || g || '}'"
                                + " FROM generate_series(1, " + (ROWS + 1000) + ") g");
            } else {
                exec(
                        ds,
                        "INSERT INTO dead_1m (id, status, attempts, last_error, customer, died_at, payload) SELECT seq,"
                                + " CASE WHEN seq <= " + ROWS + " THEN 3 ELSE 0 END, 5, " + err
                                + ", CONCAT('c-', seq % 1000),"
                                + " TIMESTAMP '2026-11-20 00:00:00' + INTERVAL seq SECOND, CONCAT('{\"order\":', seq, '}')"
                                + " FROM seq_1_to_" + (ROWS + 1000));
            }
            exec(ds, "CREATE INDEX ix_dead_1m ON dead_1m (status, id)");
            exec(ds, "CREATE INDEX ixk_dead_1m ON dead_1m (customer, id)");
            exec(ds, pg ? "ANALYZE dead_1m" : "ANALYZE TABLE dead_1m");
            System.out.printf(
                    Locale.ROOT,
                    "%s: %,d dead + 1,000 pending rows in %.1f s%n",
                    name,
                    ROWS,
                    (System.nanoTime() - t0) / 1e9);

            Baton baton = Baton.using(ds);
            ClaimQueue<St> queue = baton.<St>queue("sync")
                    .table("dead_1m")
                    .id("id")
                    .claim("status", MACHINE, St.PENDING, St.PROCESSING)
                    .select("payload")
                    .deadState(St.FAILED)
                    .orderedPerKey("customer")
                    .lease(Duration.ofSeconds(30))
                    .build();
            try (BatonConsole console = BatonConsole.builder()
                    .queue(queue)
                    .deadAtColumn("sync", "died_at")
                    .authenticator(r -> ConsoleUser.reader("bench"))
                    .sampleInterval(Duration.ofHours(1), 10)
                    .build()) {
                var dead = queue.deadLetters();
                DeadLetterQuery text = DeadLetterQuery.all().errorContains("422");
                DeadLetterQuery none = DeadLetterQuery.all().errorContains("no such text");
                Instant from = Instant.parse("2026-11-30T00:00:00Z");
                DeadLetterQuery time = DeadLetterQuery.all().changedBetween("died_at", from, from.plusSeconds(3600));
                DeadLetterQuery key = DeadLetterQuery.all().key("c-7");
                DeadLetterQuery ids = DeadLetterQuery.all().idBetween(500_000L, 500_100L);

                time(name, "page: first page, no filter (with the count)", () -> page(console, Map.of()));
                time(name, "page: after id 900,000", () -> page(console, Map.of("dead", "l900000")));
                time(name, "page: before id 900,000 (previous)", () -> page(console, Map.of("before", "l900000")));
                time(name, "page: newest first", () -> page(console, Map.of("order", "newest")));
                time(name, "page: error contains 422", () -> page(console, Map.of("find", "422")));
                time(
                        name,
                        "page: error contains 422, after id 900,000",
                        () -> page(console, Map.of("find", "422", "dead", "l900000")));
                time(
                        name,
                        "page: error text that matches nothing",
                        () -> page(console, Map.of("find", "no such text")));
                time(name, "page: key c-7", () -> page(console, Map.of("key", "c-7")));
                time(
                        name,
                        "page: id 500000 to 500100",
                        () -> page(console, Map.of("idfrom", "500000", "idto", "500100")));
                time(
                        name,
                        "page: died in one hour (day 10)",
                        () -> page(console, Map.of("from", "2026-11-30T00:00", "to", "2026-11-30T01:00")));
                time(name, "page: a row's detail", () -> handle(console, "row", Map.of("id", "l123456")));
                time(name, "find(all, 50)", () -> dead.find(DeadLetterQuery.all(), null, 50));
                time(name, "find(error 422, 50)", () -> dead.find(text, null, 50));
                time(name, "find(error no match, 50)", () -> dead.find(none, null, 50));
                time(name, "find(died in an hour, 50)", () -> dead.find(time, null, 50));
                time(name, "find(key c-7, 50)", () -> dead.find(key, null, 50));
                time(name, "find(id range, 50)", () -> dead.find(ids, null, 50));
                time(name, "countMatching(all, 100000)", () -> dead.countMatching(DeadLetterQuery.all(), 100_000));
                time(name, "countMatching(error 422, 100000)", () -> dead.countMatching(text, 100_000));
                time(name, "countMatching(key c-7, 100000)", () -> dead.countMatching(key, 100_000));
                time(name, "row(123456)", () -> dead.row(123_456L));

                // one "requeue all that match": key c-7's first 1,000 dead rows, one guarded update each
                long s = System.nanoTime();
                Object r = handleAs(console, queue);
                System.out.printf(
                        Locale.ROOT,
                        "%s | %-52s | %8.1f ms (one run) %s%n",
                        name,
                        "requeue all that match (key c-7, 1,000 rows)",
                        (System.nanoTime() - s) / 1e6,
                        r);

                plans(ds, pg);
            }
            exec(ds, "DROP TABLE dead_1m");
        }
    }

    /** The operate path needs an operator console: a second console on the same queue. */
    static Object handleAs(BatonConsole ignored, ClaimQueue<St> queue) {
        long s = System.nanoTime();
        var dead = queue.deadLetters().as("bench");
        int moved = 0;
        Object after = null;
        List<Object> found = new ArrayList<>();
        while (found.size() < 1000) {
            var page = dead.find(DeadLetterQuery.all().key("c-7"), after, 1000 - found.size());
            page.rows().forEach(x -> found.add(x.id()));
            after = page.continueAfter();
            if (after == null) {
                break;
            }
        }
        for (Object id : found) {
            if (dead.requeue(id) instanceof dev.baton.TransitionResult.Applied<?>) {
                moved++;
            }
        }
        return moved + " moved of " + found.size() + " (find " + ((System.nanoTime() - s) / 1_000_000) + " ms total)";
    }

    static void plans(HikariDataSource ds, boolean pg) throws Exception {
        String explain = pg ? "EXPLAIN " : "EXPLAIN ";
        String dead = " FROM dead_1m WHERE status = 3";
        List<String> sqls = List.of(
                "SELECT id, attempts, last_error, payload" + dead + " AND id > 900000 ORDER BY id LIMIT 51",
                "SELECT id, attempts, last_error, payload" + dead + " AND id < 900000 ORDER BY id DESC LIMIT 51",
                "SELECT MAX(baton_w.baton_id), COUNT(*) FROM (SELECT id AS baton_id" + dead
                        + " ORDER BY id LIMIT 10000) baton_w",
                "SELECT id, attempts, last_error, payload" + dead
                        + " AND id <= 10000 AND LOWER(last_error) LIKE '%422%' ESCAPE '!' ORDER BY id LIMIT 51",
                "SELECT id, attempts, last_error, payload" + dead + " AND customer = 'c-7' ORDER BY id LIMIT 51",
                "SELECT COUNT(*), SUM(CASE WHEN 1 = 1 AND LOWER(baton_c.baton_e) LIKE '%422%' ESCAPE '!' THEN 1 ELSE 0"
                        + " END) FROM (SELECT id AS baton_id, last_error AS baton_e, NULL AS baton_t" + dead
                        + " ORDER BY id LIMIT 100000) baton_c");
        try (Connection c = ds.getConnection();
                Statement st = c.createStatement()) {
            for (String sql : sqls) {
                System.out.println("PLAN " + sql);
                try (ResultSet rs = st.executeQuery(explain + sql)) {
                    int n = rs.getMetaData().getColumnCount();
                    while (rs.next()) {
                        StringBuilder b = new StringBuilder("  ");
                        for (int i = 1; i <= n; i++) {
                            b.append(rs.getString(i)).append(i < n ? " | " : "");
                        }
                        System.out.println(b);
                    }
                }
            }
        }
    }

    static Object page(BatonConsole console, Map<String, String> more) {
        return handle(console, "queue", more);
    }

    static Object handle(BatonConsole console, String path, Map<String, String> more) {
        Map<String, String> params = new HashMap<>(more);
        params.put("q", "sync");
        ConsoleResponse r = console.handle(new ConsoleRequest("GET", "/c/", path, Map.of(), params, null));
        if (r.status() != 200) {
            throw new AssertionError(r.status() + " " + r.body());
        }
        return r;
    }

    static void exec(HikariDataSource ds, String sql) throws Exception {
        try (Connection c = ds.getConnection();
                Statement st = c.createStatement()) {
            st.execute(sql);
        }
    }

    static void time(String db, String what, Supplier<Object> work) {
        work.get(); // warm up: the first call prepares and caches
        List<Long> micros = new ArrayList<>();
        for (int i = 0; i < RUNS; i++) {
            long s = System.nanoTime();
            work.get();
            micros.add((System.nanoTime() - s) / 1000);
        }
        Collections.sort(micros);
        System.out.printf(
                Locale.ROOT,
                "%s | %-52s | median %8.1f ms | max %8.1f ms%n",
                db,
                what,
                micros.get(RUNS / 2) / 1000.0,
                micros.get(RUNS - 1) / 1000.0);
    }
}
