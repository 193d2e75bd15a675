package dev.baton.bench.claim;

import dev.baton.Baton;
import dev.baton.BatonListener;
import dev.baton.ClaimQueue;
import dev.baton.Outcome;
import dev.baton.StateMachine;
import dev.baton.Worker;
import dev.baton.bench.Measurement;
import dev.baton.bench.Probe;
import dev.baton.bench.Target;
import dev.baton.bench.workload.Drainer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicIntegerArray;

/**
 * Baton end to end: {@code threads} {@link Worker}s (each one poller, handlers inline) over a {@link ClaimQueue},
 * batch {@code batch}; each worker commits a batch's completions together. Timer: workers started → the last
 * completion committed (counted by a listener after commit).
 */
public final class BatonDrainer implements Drainer {
    /** Job states, stored as their ordinals. */
    public enum Job {
        PENDING,
        PROCESSING,
        DONE,
        DEAD
    }

    /** The jobs' machine: PENDING → PROCESSING → DONE or DEAD, back to PENDING on retry. */
    public static final StateMachine<Job> MACHINE = StateMachine.of(Job.class)
            .storedAs(Job::ordinal)
            .initial(Job.PENDING)
            .allow(Job.PENDING, Job.PROCESSING)
            .allow(Job.PROCESSING, Job.PENDING, Job.DONE, Job.DEAD)
            .terminal(Job.DONE, Job.DEAD)
            .build();

    private final int batch;
    private final long history;
    private final int concurrency;
    private final boolean guid;
    private final boolean asUsers;

    /** Workers claiming {@code batch} rows at a time, over a table with {@code history} completed rows. */
    public BatonDrainer(int batch, long history) {
        this(batch, history, 1, false);
    }

    /**
     * Workers of {@code concurrency} claiming {@code batch} rows at a time; with {@code guid}, each completion sets
     * {@code third_party_guid} to {@code "g" + id}.
     */
    public BatonDrainer(int batch, long history, int concurrency, boolean guid) {
        this(batch, history, concurrency, guid, false);
    }

    /**
     * As above; with {@code asUsers}, the Workers run as a service configures them: their own pool with HikariCP's
     * defaults ({@link Target#defaultPool()}) and the Worker's default poll intervals (no tuning for the bench).
     */
    public BatonDrainer(int batch, long history, int concurrency, boolean guid, boolean asUsers) {
        this.asUsers = asUsers;
        this.batch = batch;
        this.history = history;
        this.concurrency = concurrency;
        this.guid = guid;
    }

    @Override
    public String name() {
        return "baton";
    }

    @Override
    public String description() {
        return "Baton: T `Worker`s (`baton.worker(queue).batchSize(" + batch + ")`, concurrency 1: the poller claims,"
                + " runs the no-op handler inline, completes the batch with one fenced statement) over a"
                + " `ClaimQueue` PENDING → PROCESSING → DONE on `" + JobTable.NAME + "`.";
    }

    @Override
    public Measurement drain(Target target, int threads, int tasks, Probe probe) throws Exception {
        JobTable.create(target, history, tasks);
        probe.quiesce(JobTable.NAME);
        AtomicIntegerArray executions = new AtomicIntegerArray(tasks);
        CountDownLatch committed = new CountDownLatch(tasks);
        com.zaxxer.hikari.HikariDataSource own = asUsers ? target.defaultPool() : null;
        Baton baton = Baton.builder(StatementCount.wrap(own != null ? own : target.pool()))
                .listener(new BatonListener() {
                    @Override
                    public void onOutcome(String queue, Object id, Outcome.Kind kind, Enum<?> state, int attempt) {
                        committed.countDown();
                    }
                })
                .build();
        ClaimQueue<Job> queue = queue(baton);
        List<Worker> workers = new ArrayList<>();
        probe.begin();
        long t0 = System.nanoTime();
        for (int i = 0; i < threads; i++) {
            Worker.Builder<Job> b = baton.worker(queue).batchSize(batch).concurrency(concurrency);
            if (!asUsers) {
                b = b.pollInterval(Duration.ofMillis(5), Duration.ofMillis(20));
            }
            workers.add(b.handle(row -> {
                        long id = ((Number) row.id()).longValue();
                        executions.incrementAndGet((int) (id - history - 1));
                        return guid
                                ? Outcome.<Job>complete(Job.DONE).set("third_party_guid", "g" + id)
                                : Outcome.complete(Job.DONE);
                    })
                    .start());
        }
        boolean done = committed.await(10, TimeUnit.MINUTES);
        double seconds = (System.nanoTime() - t0) / 1e9;
        probe.end();
        for (Worker w : workers) {
            w.close();
        }
        if (own != null) {
            own.close();
        }
        return DrainCheck.measure(target, history, tasks, executions, seconds, done, guid);
    }

    static ClaimQueue<Job> queue(Baton baton) {
        return baton.<Job>queue("bench")
                .table(JobTable.NAME)
                .claim("state", MACHINE, Job.PENDING, Job.PROCESSING)
                .deadState(Job.DEAD)
                .lease(Duration.ofMinutes(5))
                .build();
    }

    @Override
    public void cleanup(Target target) throws Exception {
        JobTable.drop(target);
    }
}
