package dev.baton.postgres;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.baton.Baton;
import dev.baton.ClaimQueue;
import dev.baton.ClaimedRow;
import dev.baton.Decision;
import dev.baton.Outcome;
import dev.baton.testkit.compat.JobsTable;
import dev.baton.testkit.compat.Payment;
import dev.baton.testkit.compat.Sync;
import dev.baton.testservers.TestDatabase;
import dev.baton.testservers.TestDatabases;
import java.sql.Connection;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * PostgreSQL's claim traps: a claim must never return more than its batch even when the planner picks a nested loop
 * whose inner side would re-run a locking sub-select (BUG #15715), and its plan must stay an index scan under a
 * generic plan and with many completed rows in the table.
 */
class PostgresClaimPlanTest {
    private final TestDatabase db = TestDatabases.postgresLocal();

    @Test
    void sixteenClaimersWithNestedLoopsForcedNeverExceedTheBatch() throws Exception {
        JobsTable jobs = JobsTable.create(db, "plan", true);
        try {
            int rows = 10_000;
            jobs.insert(1, rows, Payment.PAID);
            HikariConfig config = new HikariConfig();
            config.setJdbcUrl(db.jdbcUrl());
            config.setUsername(db.user());
            config.setPassword(db.password());
            config.setMaximumPoolSize(20);
            // stale statistics and no hash or merge joins: the plan shape that overshoots with WHERE id IN (...)
            config.setConnectionInitSql("SET enable_hashjoin = off; SET enable_mergejoin = off;"
                    + " SET plan_cache_mode = force_generic_plan");
            AtomicInteger over = new AtomicInteger();
            AtomicInteger claims = new AtomicInteger();
            Map<Object, Integer> seen = new ConcurrentHashMap<>();
            try (HikariDataSource ds = new HikariDataSource(config)) {
                Baton baton = Baton.using(ds);
                ClaimQueue<Sync> q = jobs.queue(baton, Duration.ofMinutes(5));
                ExecutorService pool = Executors.newFixedThreadPool(16);
                try {
                    List<Future<?>> fs = new ArrayList<>();
                    for (int t = 0; t < 16; t++) {
                        fs.add(pool.submit(() -> {
                            int empty = 0;
                            while (empty < 3) {
                                List<ClaimedRow<Sync>> got = q.claim(10);
                                claims.incrementAndGet();
                                if (got.size() > 10) {
                                    over.incrementAndGet();
                                }
                                empty = got.isEmpty() ? empty + 1 : 0;
                                List<Decision<Sync>> ds2 = new ArrayList<>();
                                for (ClaimedRow<Sync> r : got) {
                                    seen.merge(r.id(), 1, Integer::sum);
                                    ds2.add(new Decision<>(r, Outcome.complete(Sync.COMPLETED)));
                                }
                                q.applyAll(ds2);
                            }
                            return null;
                        }));
                    }
                    for (Future<?> f : fs) {
                        f.get(180, TimeUnit.SECONDS);
                    }
                } finally {
                    pool.shutdownNow();
                }
            }
            System.out.println(
                    "16 claimers, nested loops forced: " + claims.get() + " claims, " + over.get() + " over the batch");
            assertEquals(0, over.get(), "no claim returned more than 10 rows");
            assertEquals(rows, seen.size());
            assertTrue(seen.values().stream().allMatch(n -> n == 1), "no row claimed twice");
        } finally {
            jobs.drop();
        }
    }

    @Test
    void theClaimIsAnIndexScanWithAMillionCompletedRows() throws Exception {
        JobsTable jobs = JobsTable.create(db, "hist", true);
        try {
            db.execute("INSERT INTO " + jobs.name() + " (id, payment_status, sync_status, attempts)"
                    + " SELECT g, 1, 2, 1 FROM generate_series(1, 1000000) g");
            jobs.insert(2_000_001, 1000, Payment.PAID);
            db.execute("ANALYZE " + jobs.name());
            Baton baton = Baton.using(db.dataSource());
            ClaimQueue<Sync> q = jobs.queue(baton, Duration.ofMinutes(5));
            q.verify(); // the planner check passes
            String sql = q.claimSql(100).get(0);
            StringBuilder plan = new StringBuilder();
            try (Connection c = db.connect()) {
                c.setAutoCommit(false);
                try (java.sql.PreparedStatement ps = c.prepareStatement("EXPLAIN (ANALYZE, BUFFERS) " + sql)) {
                    // binds: the attempt limit (attempts < ?) and the set (PROCESSING, token); state codes are
                    // literals in the text
                    java.util.Iterator<Long> set = List.of(1L, 42L).iterator();
                    int n = 0;
                    for (int at = sql.indexOf('?'); at >= 0; at = sql.indexOf('?', at + 1)) {
                        boolean limit = sql.substring(0, at).stripTrailing().endsWith("<");
                        ps.setObject(++n, limit ? 1_000L : set.next());
                    }
                    try (ResultSet rs = ps.executeQuery()) {
                        while (rs.next()) {
                            plan.append(rs.getString(1)).append('\n');
                        }
                    }
                }
                c.rollback();
            }
            System.out.println("claim plan with 1M completed rows:\n" + plan);
            assertTrue(!plan.toString().contains("Seq Scan"), plan.toString());
        } finally {
            jobs.drop();
        }
    }
}
