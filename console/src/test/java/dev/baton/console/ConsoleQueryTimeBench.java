package dev.baton.console;

import com.sun.net.httpserver.HttpServer;
import dev.baton.Baton;
import dev.baton.ClaimQueue;
import dev.baton.testkit.compat.Sync;
import dev.baton.testservers.DatabaseKind;
import dev.baton.testservers.TestDatabase;
import dev.baton.testservers.TestDatabases;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.function.Supplier;

/**
 * The console's query times with 1,000,000 dead rows, on the local PostgreSQL and MariaDB: the full health query and
 * the sampler's bounded one, the overview (from the sample), the first and a deep page of dead letters, and a requeue. Not a test (it
 * takes a minute); run it by hand:
 *
 * <pre>
 * ./mvnw -B -q -o test-compile -pl console -am
 * java -cp "console/target/test-classes:console/target/classes:$(cat cp.txt)" dev.baton.console.ConsoleQueryTimeBench
 * </pre>
 *
 * The table is {@code cs_bench_dead_*}, dropped at the end.
 */
public final class ConsoleQueryTimeBench {
    static final int ROWS = 1_000_000;
    static final int RUNS = 15;

    public static void main(String[] args) throws Exception {
        List<Supplier<TestDatabase>> dbs = List.of(TestDatabases::postgresLocal, TestDatabases::mariadbLocal);
        for (Supplier<TestDatabase> s : dbs) {
            run(s.get());
        }
    }

    static void run(TestDatabase db) throws Exception {
        String t = TestDatabases.uniqueName(System.getProperty("bench.table", "cs_bench_dead"));
        String ts = db.kind().timestampType();
        db.execute("CREATE TABLE " + t + " (id BIGINT NOT NULL PRIMARY KEY, sync_status INT NOT NULL, lease_until " + ts
                + ", claim_token BIGINT NULL, attempts INT DEFAULT 0 NOT NULL, next_attempt_at " + ts
                + ", last_error VARCHAR(1000) NULL, created_at " + ts + ", payload VARCHAR(300) NULL)");
        try {
            long t0 = System.nanoTime();
            String now = db.kind().now();
            if (db.kind() == DatabaseKind.POSTGRES) {
                db.execute("INSERT INTO " + t + " (id, sync_status, attempts, last_error, payload, created_at)"
                        + " SELECT g, CASE WHEN g <= " + ROWS + " THEN 3 WHEN g <= " + (ROWS + 1000)
                        + " THEN 0 ELSE 5 END, 5, 'HTTP 500 from the receiver, attempt ' || g, 'payload ' || g, " + now
                        + " FROM generate_series(1, " + (ROWS + 1100) + ") g");
            } else {
                // MariaDB's sequence engine (seq_1_to_N) makes the rows without a recursive CTE's depth limit
                db.execute("INSERT INTO " + t + " (id, sync_status, attempts, last_error, payload, created_at)"
                        + " SELECT seq, CASE WHEN seq <= " + ROWS + " THEN 3 WHEN seq <= " + (ROWS + 1000)
                        + " THEN 0 ELSE 5 END, 5, CONCAT('HTTP 500 from the receiver, attempt ', seq),"
                        + " CONCAT('payload ', seq), " + now + " FROM seq_1_to_" + (ROWS + 1100));
            }
            db.execute("CREATE INDEX ix_" + t + " ON " + t + " (sync_status, id)");
            db.execute(db.kind() == DatabaseKind.POSTGRES ? "ANALYZE " + t : "ANALYZE TABLE " + t);
            System.out.printf(
                    Locale.ROOT,
                    "%s: %,d dead + 1,000 pending + 100 unknown rows inserted and indexed in %.1f s%n",
                    db.kind(),
                    ROWS,
                    (System.nanoTime() - t0) / 1e9);

            Baton baton = Baton.using(db.dataSource());
            ClaimQueue<Sync> queue = ConsoleFixture.queue(baton, t);
            try (BatonConsole console = BatonConsole.builder()
                    .queue(queue)
                    .authenticator(ConsoleFixture::authenticate)
                    .sampleInterval(Duration.ofHours(1), 10)
                    .build()) {
                HttpServer server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
                server.createContext("/c/", console.httpHandler());
                server.start();
                try {
                    String base = "http://127.0.0.1:" + server.getAddress().getPort() + "/c/";
                    HttpClient http = HttpClient.newHttpClient();
                    time(db, "health() (one query over the whole table)", () -> queue.health());
                    time(db, "health(10001) (the sampler's bounded counts)", () -> queue.health(10_001));
                    time(db, "console.sample() (what each interval costs)", () -> {
                        console.sample();
                        return null;
                    });
                    time(db, "deadLetters().count(10000)", () -> queue.deadLetters()
                            .count(10_000));
                    time(db, "GET overview (from the sample)", () -> get(http, base));
                    time(
                            db,
                            "GET queue page, first page of dead + unknown",
                            () -> get(http, base + "queue?q=" + queue.name()));
                    time(
                            db,
                            "GET queue page, dead after id 900000",
                            () -> get(http, base + "queue?q=" + queue.name() + "&dead=l900000"));
                    time(db, "deadLetters().list(50)", () -> queue.deadLetters().list(50));
                    time(db, "deadLetters().listAfter(900000, 50)", () -> queue.deadLetters()
                            .listAfter(900_000L, 50));
                    time(db, "unknownSends().list(50)", () -> queue.unknownSends()
                            .list(50));
                    // the same pages without the HTTP round trip (the JDK server and client add ~40 ms of
                    // delayed-ACK latency on loopback, whatever the page)
                    time(db, "handle() overview", () -> handle(console, "", null));
                    time(db, "handle() queue page, first page", () -> handle(console, "queue", queue.name()));
                    time(
                            db,
                            "handle() queue page, dead after 900000",
                            () -> handle(console, "queue", queue.name(), "l900000"));
                } finally {
                    server.stop(0);
                }
            }
        } finally {
            db.dropTableIfExists(t);
        }
    }

    static Object handle(BatonConsole console, String path, String q, String... after) {
        java.util.Map<String, String> params = new java.util.HashMap<>();
        if (q != null) {
            params.put("q", q);
        }
        if (after.length > 0) {
            params.put("dead", after[0]);
        }
        ConsoleResponse r = console.handle(new ConsoleRequest(
                "GET", "/c/", path, java.util.Map.of(ConsoleFixture.USER_HEADER, List.of("reader")), params, null));
        if (r.status() != 200) {
            throw new AssertionError(r.status() + " " + r.body());
        }
        return r;
    }

    static String get(HttpClient http, String url) {
        try {
            HttpResponse<String> r = http.send(
                    HttpRequest.newBuilder(URI.create(url))
                            .header(ConsoleFixture.USER_HEADER, "reader")
                            .build(),
                    HttpResponse.BodyHandlers.ofString());
            if (r.statusCode() != 200) {
                throw new AssertionError(r.statusCode() + " " + r.body());
            }
            return r.body();
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }

    static void time(TestDatabase db, String what, Supplier<Object> work) {
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
                "%s | %-50s | median %8.1f ms | max %8.1f ms%n",
                db.kind(),
                what,
                micros.get(RUNS / 2) / 1000.0,
                micros.get(RUNS - 1) / 1000.0);
    }
}
