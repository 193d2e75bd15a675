package dev.baton.bench.wake;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.baton.Baton;
import dev.baton.Worker;
import java.io.PrintStream;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * The other process of the two-process wake-up bench: one Worker (default poll intervals) over the bench table,
 * printing {@code READY} once it runs and {@code L micros} per handled row (its wall clock minus the row's stamp), then
 * exiting after {@code rows} rows or 120 s.
 *
 * <p>Arguments: jdbcUrl user password wakeups|polling rows handlerMillis.
 */
public final class WakeConsumerMain {
    private WakeConsumerMain() {}

    /** Runs the process. */
    public static void main(String[] args) throws Exception {
        PrintStream out = System.out;
        boolean wakeups = args[3].equals("wakeups");
        int rows = Integer.parseInt(args[4]);
        long handlerMillis = Long.parseLong(args[5]);
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(args[0]);
        config.setUsername(args[1]);
        config.setPassword(args[2].equals("-") ? "" : args[2]);
        config.setMaximumPoolSize(4);
        config.setTransactionIsolation("TRANSACTION_READ_COMMITTED");
        CountDownLatch done = new CountDownLatch(rows);
        try (HikariDataSource ds = new HikariDataSource(config)) {
            Baton baton = Baton.builder(ds).crossProcessWakeups(wakeups).build();
            try (Worker w = baton.worker(WakeTable.queue(baton))
                    .batchSize(10)
                    .handle(row -> {
                        long enq = ((Number) row.get("enq_us")).longValue();
                        out.println("L " + (WakeTable.nowMicros() - enq));
                        if (handlerMillis > 0) {
                            Thread.sleep(handlerMillis);
                        }
                        done.countDown();
                        return dev.baton.Outcome.complete(WakeTable.State.DONE);
                    })
                    .start()) {
                Thread.sleep(1500); // its first claim, and the listener's probe
                out.println(w.isRunning() ? "READY" : "NOT RUNNING");
                out.flush();
                done.await(120, TimeUnit.SECONDS);
            }
        }
        out.println("FINISHED");
    }
}
