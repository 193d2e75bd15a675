package dev.baton.testkit.compat;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.baton.Baton;
import dev.baton.BatonInterceptor;
import dev.baton.ClaimedRow;
import dev.baton.Outcome;
import dev.baton.Worker;
import java.io.PrintStream;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * A worker process for the wake-up tests: one worker polling every 30 s on the seed's sync queue over {@code table},
 * its instance listening on {@code channel}. Prints {@code CLAIMED} after each claim, {@code H id} for each row it
 * handles, and exits after {@code rows} rows or 60 s.
 *
 * <p>Arguments: jdbcUrl user password table channel rows.
 */
public final class WakeupWorkerMain {
    private WakeupWorkerMain() {}

    /** Runs the process. */
    public static void main(String[] args) throws Exception {
        String password = args[2].equals("-") ? "" : args[2];
        int rows = Integer.parseInt(args[5]);
        PrintStream out = System.out;
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(args[0]);
        config.setUsername(args[1]);
        config.setPassword(password);
        config.setMaximumPoolSize(4);
        CountDownLatch done = new CountDownLatch(rows);
        try (HikariDataSource ds = new HikariDataSource(config)) {
            Baton baton = Baton.builder(ds)
                    .crossProcessWakeups(true)
                    .wakeupChannel(args[4])
                    .interceptor(new BatonInterceptor() {
                        @Override
                        public <S extends Enum<S>> List<ClaimedRow<S>> aroundClaim(ClaimCall<S> call) {
                            List<ClaimedRow<S>> r = call.proceed();
                            out.println("CLAIMED " + r.size());
                            return r;
                        }
                    })
                    .build();
            try (Worker w = baton.worker(JobsTable.queue(baton, args[3], Duration.ofSeconds(30)))
                    .pollInterval(Duration.ofSeconds(30), Duration.ofSeconds(30))
                    .handle(row -> {
                        out.println("H " + row.id());
                        done.countDown();
                        return Outcome.complete(Sync.COMPLETED);
                    })
                    .start()) {
                done.await(60, TimeUnit.SECONDS);
                out.println(w.isRunning() ? "STOPPING" : "STOPPED");
            }
        }
        out.println("FINISHED");
    }
}
