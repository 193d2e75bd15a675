package dev.baton.testkit.compat;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.baton.Baton;
import dev.baton.BatonListener;
import dev.baton.ClaimQueue;
import dev.baton.Outcome;
import dev.baton.QueueHealth;
import dev.baton.Worker;
import java.io.PrintStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * A worker process for multi-process tests: runs {@code threads} workers on the seed's sync queue over {@code table}
 * until the queue is drained, printing a history line for every handler call ({@code H id token attempt}) and every
 * committed completion ({@code D id}), then {@code FINISHED}.
 *
 * <p>Arguments: jdbcUrl user password table threads batchSize leaseSeconds handlerSleepMillis [sending]. With
 * {@code sending}, the queue has a non-idempotent sink: each handler records {@code SENDING} first (committed), prints
 * {@code SEND id} as the external call, then sleeps.
 */
public final class ClaimWorkerMain {
    private ClaimWorkerMain() {}

    /** Runs the process. */
    public static void main(String[] args) throws Exception {
        String url = args[0];
        String user = args[1];
        String password = args[2].equals("-") ? "" : args[2];
        String table = args[3];
        int threads = Integer.parseInt(args[4]);
        int batch = Integer.parseInt(args[5]);
        Duration lease = Duration.ofSeconds(Long.parseLong(args[6]));
        long sleep = Long.parseLong(args[7]);
        boolean sending = args.length > 8 && args[8].equals("sending");
        PrintStream out = System.out;

        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(url);
        config.setUsername(user);
        config.setPassword(password);
        config.setMaximumPoolSize(threads * 2 + 2);
        try (HikariDataSource ds = new HikariDataSource(config)) {
            Baton baton = Baton.builder(ds)
                    .listener(new BatonListener() {
                        @Override
                        public void onOutcome(String queue, Object id, Outcome.Kind kind, Enum<?> state, int attempt) {
                            if (kind == Outcome.Kind.COMPLETE) {
                                out.println("D " + id);
                            }
                        }
                    })
                    .build();
            ClaimQueue<Sync> queue =
                    sending ? JobsTable.sendingQueue(baton, table, lease) : JobsTable.queue(baton, table, lease);
            List<Worker> workers = new ArrayList<>();
            for (int i = 0; i < threads; i++) {
                workers.add(baton.worker(queue)
                        .batchSize(batch)
                        .pollInterval(Duration.ofMillis(20), Duration.ofMillis(200))
                        .handle(row -> {
                            out.println(
                                    (sending ? "SEND " : "H ") + row.id() + " " + row.token() + " " + row.attempt());
                            if (sleep > 0) {
                                Thread.sleep(sleep);
                            }
                            return Outcome.<Sync>complete(Sync.COMPLETED).set("third_party_guid", "g" + row.token());
                        })
                        .start());
            }
            out.println("STARTED");
            int quiet = 0;
            while (quiet < 3) {
                Thread.sleep(200);
                QueueHealth h = queue.health();
                boolean idle = h.eligible() == 0 && h.inFlight() == 0 && h.expiredLeases() == 0;
                quiet = idle ? quiet + 1 : 0;
            }
            for (Worker w : workers) {
                w.close();
            }
            out.println("FINISHED");
            out.flush();
        }
    }
}
