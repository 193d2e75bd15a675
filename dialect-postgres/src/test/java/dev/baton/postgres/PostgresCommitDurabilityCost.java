package dev.baton.postgres;

import static org.junit.jupiter.api.Assertions.assertInstanceOf;

import dev.baton.Baton;
import dev.baton.CommitDurability;
import dev.baton.StateTable;
import dev.baton.TransitionResult;
import dev.baton.testkit.compat.Payment;
import dev.baton.testservers.TestDatabase;
import dev.baton.testservers.TestDatabases;
import dev.baton.testservers.TestServer;
import java.time.Duration;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

/**
 * What {@code commitDurability} costs per transition on PostgreSQL: a measurement, not a check (the suite that checks
 * it is the test kit's, run on the local server and the streaming cluster by the compatibility tests).
 */
class PostgresCommitDurabilityCost {
    /**
     * The cost per transition on the writer of the asynchronous streaming cluster: {@value #ROWS} transitions with
     * {@code OFF} and {@value #ROWS} with {@code REQUIRE}, alternating one by one, each timed around {@code apply()}.
     * A measurement, not a check: its class name is outside surefire's test pattern, so the build never runs
     * it; run it by hand with {@code -Dtest=PostgresCommitDurabilityCost}.
     */
    @Test
    void costPerTransitionOnAStreamingStandby() {
        TestDatabase db = TestServer.POSTGRES_STREAMING_ASYNC.get();
        String table = TestDatabases.uniqueName("cd_cost");
        db.execute("CREATE TABLE " + table + " (id BIGINT PRIMARY KEY, payment_status INT NOT NULL)");
        try {
            db.execute("INSERT INTO " + table + " SELECT g, 0 FROM generate_series(1, " + (2 * ROWS + 200) + ") g");
            StateTable<Payment> off =
                    Baton.using(db.dataSource()).table(table).state("payment_status", Payment.MACHINE);
            StateTable<Payment> require = Baton.builder(db.dataSource())
                    .commitDurability(CommitDurability.REQUIRE, Duration.ofSeconds(10))
                    .build()
                    .table(table)
                    .state("payment_status", Payment.MACHINE);
            long id = 1;
            for (int i = 0; i < 100; i++) { // warm-up: connections, prepared statements, JIT
                off.transition(id++, Payment.PENDING, Payment.PAID).apply();
                require.transition(id++, Payment.PENDING, Payment.PAID).apply();
            }
            long[] offNanos = new long[ROWS];
            long[] requireNanos = new long[ROWS];
            for (int i = 0; i < ROWS; i++) {
                offNanos[i] = timed(off, id++);
                requireNanos[i] = timed(require, id++);
            }
            System.out.printf(
                    "commit durability cost, %d transitions each: OFF median %.2f ms p99 %.2f ms; REQUIRE median %.2f"
                            + " ms p99 %.2f ms%n",
                    ROWS,
                    percentile(offNanos, 50),
                    percentile(offNanos, 99),
                    percentile(requireNanos, 50),
                    percentile(requireNanos, 99));
        } finally {
            db.dropTableIfExists(table);
        }
    }

    private static final int ROWS = 1000;

    private static long timed(StateTable<Payment> payments, long id) {
        long start = System.nanoTime();
        TransitionResult<Payment> r =
                payments.transition(id, Payment.PENDING, Payment.PAID).apply();
        long took = System.nanoTime() - start;
        assertInstanceOf(TransitionResult.Applied.class, r);
        return took;
    }

    private static double percentile(long[] nanos, int p) {
        long[] sorted = nanos.clone();
        Arrays.sort(sorted);
        int i = (int) Math.ceil(p / 100.0 * sorted.length) - 1;
        return sorted[Math.max(0, i)] / 1e6;
    }
}
