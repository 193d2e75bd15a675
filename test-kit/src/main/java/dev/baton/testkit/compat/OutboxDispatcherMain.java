package dev.baton.testkit.compat;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.baton.Baton;
import dev.baton.Outbox;
import dev.baton.QueueHealth;
import dev.baton.Worker;
import java.io.PrintStream;
import java.time.Duration;

/**
 * A dispatcher process for multi-process outbox tests: delivers the outbox in {@code table} to a recording sink that
 * prints {@code DELIVER id key}, until the outbox is drained, then prints {@code FINISHED}.
 *
 * <p>Arguments: jdbcUrl user password table threads
 */
public final class OutboxDispatcherMain {
    private OutboxDispatcherMain() {}

    /** Runs the process. */
    public static void main(String[] args) throws Exception {
        PrintStream out = System.out;
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(args[0]);
        config.setUsername(args[1]);
        config.setPassword(args[2].equals("-") ? "" : args[2]);
        int threads = Integer.parseInt(args[4]);
        config.setMaximumPoolSize(threads + 4);
        try (HikariDataSource ds = new HikariDataSource(config)) {
            Outbox outbox = Baton.using(ds).outbox(args[3]);
            Worker worker = outbox.dispatcher(m -> out.println("DELIVER " + m.id() + " " + m.key()))
                    .batchSize(20)
                    .concurrency(threads)
                    .pollInterval(Duration.ofMillis(20), Duration.ofMillis(200))
                    .start();
            out.println("STARTED");
            int quiet = 0;
            while (quiet < 3) {
                Thread.sleep(200);
                QueueHealth h = outbox.queue().health();
                quiet = h.eligible() == 0 && h.inFlight() == 0 && h.waiting() == 0 ? quiet + 1 : 0;
            }
            worker.close();
            out.println("FINISHED");
            out.flush();
        }
    }
}
