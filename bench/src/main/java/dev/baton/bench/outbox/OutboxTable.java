package dev.baton.bench.outbox;

import dev.baton.Baton;
import dev.baton.bench.Target;
import java.sql.Connection;
import java.sql.Statement;

/**
 * The outbox table both variants write and drain: created, for both, by Baton's own DDL ({@code
 * baton.ownTables().outboxDdl}: identity/auto-increment id, the message columns, the claim bookkeeping columns, and the
 * indexes {@code (dedup_key)} unique, {@code (status, id)} and {@code (msg_key, status, id)}), fresh for every run.
 */
final class OutboxTable {
    static final String NAME = "baton_bench_outbox";

    private OutboxTable() {}

    /** Delivered messages kept in the table before every run, as an outbox that is not purged at once holds them. */
    static final int HISTORY = 20_000;

    /**
     * Drops the table if it exists, creates it with Baton's DDL for the target's dialect, and stores {@value #HISTORY}
     * delivered messages with ids -{@value #HISTORY}..-1 (the keys of the run's messages; the identity still starts at
     * 1), then refreshes the statistics. Statements prepared on the pooled connections are planned for a table of that
     * size, not for an empty one (see the summary's note on generic plans).
     */
    static void create(Target target) throws Exception {
        drop(target);
        boolean pg = target.kind() == Target.Kind.POSTGRES;
        try (Connection c = target.pool().getConnection();
                Statement st = c.createStatement()) {
            for (String sql : Baton.using(target.pool()).ownTables().outboxDdl(NAME)) {
                st.execute(sql);
            }
            String columns = " (id, topic, msg_key, payload, status, attempts, created_at)";
            st.execute(
                    pg
                            ? "INSERT INTO " + NAME + columns + " SELECT -g, '" + Ledger.TOPIC + "', 'k' || (g % "
                                    + Ledger.KEYS + "), convert_to(repeat('x', " + Ledger.PAYLOAD_BYTES
                                    + "), 'UTF8'), 2, 1, clock_timestamp() FROM generate_series(1, " + HISTORY + ") g"
                            : "INSERT INTO " + NAME + columns + " SELECT -seq, '" + Ledger.TOPIC + "', CONCAT('k', seq"
                                    + " % " + Ledger.KEYS + "), REPEAT('x', " + Ledger.PAYLOAD_BYTES
                                    + "), 2, 1, CURRENT_TIMESTAMP(6) FROM seq_1_to_" + HISTORY);
            st.execute(pg ? "VACUUM ANALYZE " + NAME : "ANALYZE TABLE " + NAME);
        }
    }

    /**
     * Rows of the run (ids above 0), rows not delivered (status other than DELIVERED's code 2), and rows whose attempts are not exactly 1 (0:
     * never claimed; more: claimed twice).
     */
    static long[] verify(Target target) throws Exception {
        try (Connection c = target.pool().getConnection();
                Statement st = c.createStatement()) {
            long rows = Long.parseLong(Target.one(st, "SELECT COUNT(*) FROM " + NAME + " WHERE id > 0"));
            long notDelivered = Long.parseLong(Target.one(st, "SELECT COUNT(*) FROM " + NAME + " WHERE status <> 2"));
            long attempts = Long.parseLong(Target.one(st, "SELECT COUNT(*) FROM " + NAME + " WHERE attempts <> 1"));
            return new long[] {rows, notDelivered, attempts};
        }
    }

    static void drop(Target target) throws Exception {
        try (Connection c = target.pool().getConnection();
                Statement st = c.createStatement()) {
            st.execute("DROP TABLE IF EXISTS " + NAME);
        }
    }
}
