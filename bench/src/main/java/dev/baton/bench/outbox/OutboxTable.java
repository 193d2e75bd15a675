package dev.baton.bench.outbox;

import dev.baton.Baton;
import dev.baton.bench.Target;
import java.sql.Connection;
import java.sql.Statement;

/**
 * The outbox table both variants write and drain: created, for both, by Baton's own DDL ({@code
 * baton.schema().outboxDdl}: identity/auto-increment id, the message columns, the claim bookkeeping columns, and the
 * indexes {@code (dedup_key)} unique, {@code (status, id)} and {@code (msg_key, id)}), fresh and empty for every run.
 */
final class OutboxTable {
    static final String NAME = "baton_bench_outbox";

    private OutboxTable() {}

    /** Drops the table if it exists and creates it empty with Baton's DDL for the target's dialect. */
    static void create(Target target) throws Exception {
        drop(target);
        try (Connection c = target.pool().getConnection();
                Statement st = c.createStatement()) {
            for (String sql : Baton.using(target.pool()).schema().outboxDdl(NAME)) {
                st.execute(sql);
            }
        }
    }

    /**
     * Rows, rows not delivered (status other than DELIVERED's code 2), and rows whose attempts are not exactly 1 (0:
     * never claimed; more: claimed twice).
     */
    static long[] verify(Target target) throws Exception {
        try (Connection c = target.pool().getConnection();
                Statement st = c.createStatement()) {
            long rows = Long.parseLong(Target.one(st, "SELECT COUNT(*) FROM " + NAME));
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
