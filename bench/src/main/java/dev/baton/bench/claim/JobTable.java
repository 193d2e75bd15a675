package dev.baton.bench.claim;

import dev.baton.bench.Target;
import java.sql.Connection;
import java.sql.Statement;

/**
 * The queue table both claim variants drain: the bookkeeping columns of a Baton claim queue, integer states
 * (0 pending, 1 processing, 2 done, 3 dead), optional completed history rows below the pending ids, and the index
 * Baton's {@code ClaimQueue.verify()} suggests (PostgreSQL: partial on the active rows; MariaDB: {@code (state, id)}).
 */
final class JobTable {
    static final String NAME = "baton_bench_jobs";

    private JobTable() {}

    /** Creates the table with {@code history} completed rows, then {@code pending} due rows above them. */
    static void create(Target target, long history, int pending) throws Exception {
        boolean pg = target.kind() == Target.Kind.POSTGRES;
        String ts = pg ? "TIMESTAMPTZ" : "DATETIME(6) NULL"; // Baton refuses TIMESTAMP leases
        try (Connection c = target.pool().getConnection();
                Statement st = c.createStatement()) {
            st.execute("DROP TABLE IF EXISTS " + NAME);
            st.execute(
                    "CREATE TABLE " + NAME + " (id BIGINT NOT NULL PRIMARY KEY, state INT NOT NULL, lease_until " + ts
                            + ", claim_token BIGINT NULL, attempts INT NOT NULL DEFAULT 0, next_attempt_at " + ts
                            + ", last_error VARCHAR(1000) NULL, third_party_guid VARCHAR(64) NULL)");
            insert(st, pg, 1, history, 2, 1);
            insert(st, pg, history + 1, pending, 0, 0);
            st.execute(
                    pg
                            ? "CREATE INDEX " + NAME + "_claim ON " + NAME + " (id) WHERE state IN (0, 1)"
                            : "CREATE INDEX " + NAME + "_claim ON " + NAME + " (state, id)");
            st.execute(pg ? "VACUUM ANALYZE " + NAME : "ANALYZE TABLE " + NAME);
        }
    }

    private static void insert(Statement st, boolean pg, long first, long count, int state, int attempts)
            throws Exception {
        long done = 0;
        while (done < count) {
            long n = Math.min(500_000, count - done);
            long from = first + done;
            long to = from + n - 1;
            st.execute(
                    pg
                            ? "INSERT INTO " + NAME + " (id, state, attempts) SELECT g, " + state + ", " + attempts
                                    + " FROM generate_series(" + from + ", " + to + ") g"
                            : "INSERT INTO " + NAME + " (id, state, attempts) SELECT seq, " + state + ", " + attempts
                                    + " FROM seq_" + from + "_to_" + to);
            done += n;
        }
    }

    /** Rows not done, and rows completed more than once (attempts above 1 would mean a second claim). */
    static long[] verify(Target target, long history) throws Exception {
        return verify(target, history, false);
    }

    /** As {@link #verify(Target, long)}; with {@code guid}, a done row without its guid {@code 'g' || id} is not done. */
    static long[] verify(Target target, long history, boolean guid) throws Exception {
        try (Connection c = target.pool().getConnection();
                Statement st = c.createStatement()) {
            String wrongGuid = " OR (id > " + history + " AND (third_party_guid IS NULL OR third_party_guid <> "
                    + (target.kind() == Target.Kind.POSTGRES ? "'g' || id" : "CONCAT('g', id)") + "))";
            long notDone = Long.parseLong(
                    Target.one(st, "SELECT COUNT(*) FROM " + NAME + " WHERE state <> 2" + (guid ? wrongGuid : "")));
            long reclaimed = Long.parseLong(
                    Target.one(st, "SELECT COUNT(*) FROM " + NAME + " WHERE id > " + history + " AND attempts <> 1"));
            return new long[] {notDone, reclaimed};
        }
    }

    static void drop(Target target) throws Exception {
        try (Connection c = target.pool().getConnection();
                Statement st = c.createStatement()) {
            st.execute("DROP TABLE IF EXISTS " + NAME);
        }
    }
}
