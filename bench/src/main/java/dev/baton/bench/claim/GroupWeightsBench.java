package dev.baton.bench.claim;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.baton.Baton;
import dev.baton.ClaimQueue;
import dev.baton.GroupWeights;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * What a weight per group costs a round-robin claim: {@code --rows} eligible rows spread over
 * 20 tenants, a claim of 100 by {@code fairAcross("tenant")} against the same with five tenants of weight 3, the two
 * alternating, each claim rolled back (so every claim sees the same table); medians and p90 of the timed claims after
 * five warm-up claims of each. Prints one line per database; the table is {@code gw_bench}, dropped at the end.
 *
 * <pre>
 * java -cp 'bench/target/classes:bench/target/lib/*' dev.baton.bench.claim.GroupWeightsBench --rows 200000
 * </pre>
 */
public final class GroupWeightsBench {
    private static final int GROUPS = 20;
    private static final int CLAIMS = 40;
    private static final int WARM_UP = 5;

    private GroupWeightsBench() {}

    public static void main(String[] args) throws Exception {
        int rows = 200_000;
        for (int i = 0; i + 1 < args.length; i += 2) {
            if (args[i].equals("--rows")) {
                rows = Integer.parseInt(args[i + 1]);
            }
        }
        run("jdbc:postgresql://127.0.0.1:5432/test", "postgres", "TIMESTAMPTZ", rows);
        run("jdbc:mariadb://127.0.0.1:3306/test", "root", "DATETIME(6)", rows);
    }

    private static void run(String url, String user, String timestamp, int rows) throws Exception {
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(url);
        config.setUsername(user);
        config.setMaximumPoolSize(2);
        String table = "gw_bench";
        try (HikariDataSource pool = new HikariDataSource(config)) {
            execute(pool, "DROP TABLE IF EXISTS " + table);
            execute(
                    pool,
                    "CREATE TABLE " + table + " (id BIGINT NOT NULL PRIMARY KEY, state INT NOT NULL, tenant"
                            + " VARCHAR(20) NULL, lease_until " + timestamp
                            + " NULL, claim_token BIGINT NULL, attempts INT"
                            + " DEFAULT 0 NOT NULL, next_attempt_at " + timestamp
                            + " NULL, last_error VARCHAR(1000) NULL)");
            try (Connection c = pool.getConnection();
                    PreparedStatement ps = c.prepareStatement(
                            "INSERT INTO " + table + " (id, state, tenant, attempts) VALUES (?, 0, ?, 0)")) {
                c.setAutoCommit(false);
                for (int i = 1; i <= rows; i++) {
                    ps.setLong(1, i);
                    ps.setString(2, "t" + (i % GROUPS));
                    ps.addBatch();
                    if (i % 5000 == 0) {
                        ps.executeBatch();
                    }
                }
                ps.executeBatch();
                c.commit();
            }
            Baton baton = Baton.using(pool);
            Map<Object, Integer> weights = new LinkedHashMap<>();
            for (int g = 0; g < 5; g++) {
                weights.put("t" + g, 3);
            }
            ClaimQueue<BatonDrainer.Job> plain = queue(baton, table, "plain", GroupWeights.none());
            ClaimQueue<BatonDrainer.Job> weighted = queue(baton, table, "weighted", GroupWeights.of(weights));
            execute(pool, plain.suggestedIndex());
            execute(pool, (url.contains("mariadb") ? "ANALYZE TABLE " : "ANALYZE ") + table);
            plain.verify();
            weighted.verify();
            List<Long> plainMicros = new ArrayList<>();
            List<Long> weightedMicros = new ArrayList<>();
            for (int i = 0; i < CLAIMS; i++) {
                for (int v = 0; v < 2; v++) {
                    boolean first = (i + v) % 2 == 0;
                    ClaimQueue<BatonDrainer.Job> q = first ? plain : weighted;
                    try (Connection c = pool.getConnection()) {
                        c.setAutoCommit(false);
                        long t0 = System.nanoTime();
                        q.claim(c, 100);
                        long micros = TimeUnit.NANOSECONDS.toMicros(System.nanoTime() - t0);
                        c.rollback();
                        if (i >= WARM_UP) {
                            (first ? plainMicros : weightedMicros).add(micros);
                        }
                    }
                }
            }
            execute(pool, "DROP TABLE " + table);
            System.out.printf(
                    "%s: %,d rows in %d tenants, claim of 100: without weights median %.1f ms (p90 %.1f),"
                            + " 5 tenants of weight 3 median %.1f ms (p90 %.1f); %d claims each%n",
                    url,
                    rows,
                    GROUPS,
                    percentile(plainMicros, 50) / 1000.0,
                    percentile(plainMicros, 90) / 1000.0,
                    percentile(weightedMicros, 50) / 1000.0,
                    percentile(weightedMicros, 90) / 1000.0,
                    plainMicros.size());
        }
    }

    private static ClaimQueue<BatonDrainer.Job> queue(Baton baton, String table, String name, GroupWeights weights) {
        return baton.<BatonDrainer.Job>queue("gw-bench-" + name)
                .table(table)
                .claim("state", BatonDrainer.MACHINE, BatonDrainer.Job.PENDING, BatonDrainer.Job.PROCESSING)
                .deadState(BatonDrainer.Job.DEAD)
                .lease(Duration.ofMinutes(5))
                .fairAcross("tenant", weights)
                .build();
    }

    private static long percentile(List<Long> values, int p) {
        List<Long> sorted = new ArrayList<>(values);
        Collections.sort(sorted);
        return sorted.get(Math.min(sorted.size() - 1, sorted.size() * p / 100));
    }

    private static void execute(HikariDataSource pool, String sql) throws SQLException {
        try (Connection c = pool.getConnection();
                Statement s = c.createStatement()) {
            s.execute(sql);
        }
    }
}
