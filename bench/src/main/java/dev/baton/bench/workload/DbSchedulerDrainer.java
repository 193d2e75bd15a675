package dev.baton.bench.workload;

import com.github.kagkarlsson.scheduler.Scheduler;
import com.github.kagkarlsson.scheduler.task.helper.OneTimeTask;
import com.github.kagkarlsson.scheduler.task.helper.Tasks;
import dev.baton.bench.Latency;
import dev.baton.bench.Measurement;
import dev.baton.bench.Probe;
import dev.baton.bench.Target;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The peer: db-scheduler one-time tasks on PostgreSQL with its fastest documented polling strategy,
 * {@code pollUsingLockAndFetch(1.0, 4.0)} (one {@code UPDATE … RETURNING} locks and fetches up to 4 × threads due
 * executions; each completion deletes its row in its own commit).
 */
public final class DbSchedulerDrainer implements Drainer {
    /**
     * db-scheduler's standard table (the DDL of its {@code postgresql_tables.sql} for 16.x), under a prefixed name so
     * that it cannot collide with a {@code scheduled_tasks} table of anyone else using the same database.
     */
    static final String TABLE = "baton_bench_scheduled_tasks";

    private static final String DDL = "CREATE TABLE " + TABLE + " ("
            + " task_name TEXT NOT NULL,"
            + " task_instance TEXT NOT NULL,"
            + " task_data BYTEA,"
            + " execution_time TIMESTAMP WITH TIME ZONE NOT NULL,"
            + " picked BOOLEAN NOT NULL,"
            + " picked_by TEXT,"
            + " last_success TIMESTAMP WITH TIME ZONE,"
            + " last_failure TIMESTAMP WITH TIME ZONE,"
            + " consecutive_failures INT,"
            + " last_heartbeat TIMESTAMP WITH TIME ZONE,"
            + " version BIGINT NOT NULL,"
            + " priority SMALLINT,"
            + " PRIMARY KEY (task_name, task_instance))";

    @Override
    public String name() {
        return "db-scheduler";
    }

    @Override
    public String description() {
        return "db-scheduler 16.7.1, `Tasks.oneTime(\"baton-bench\")` with a no-op handler that counts executions per"
                + " task, `Scheduler.create(pool, task).threads(T).pollingInterval(500 ms)"
                + ".pollUsingLockAndFetch(1.0, 4.0)`, on the target's shared pool. Its standard PostgreSQL table"
                + " (`postgresql_tables.sql`: primary key and the three indexes) named `" + TABLE + "`. Rows inserted"
                + " with `execution_time = now() - 1 s`, `picked = false`, `version = 1`. Timer: `start()` → table"
                + " empty (one-time tasks delete their row when done).";
    }

    @Override
    public boolean supports(Target target) {
        return target.kind() == Target.Kind.POSTGRES;
    }

    @Override
    public Measurement drain(Target target, int threads, int tasks, Probe probe) throws Exception {
        try (Connection c = target.pool().getConnection();
                Statement st = c.createStatement()) {
            st.execute("DROP TABLE IF EXISTS " + TABLE);
            st.execute(DDL);
            st.execute("CREATE INDEX " + TABLE + "_execution_time_idx ON " + TABLE + " (execution_time)");
            st.execute("CREATE INDEX " + TABLE + "_last_heartbeat_idx ON " + TABLE + " (last_heartbeat)");
            st.execute("CREATE INDEX " + TABLE + "_priority_execution_time_idx ON " + TABLE
                    + " (priority DESC, execution_time ASC)");
            st.execute("INSERT INTO " + TABLE + " (task_name, task_instance, task_data, execution_time, picked,"
                    + " version, priority) SELECT 'baton-bench', g::text, NULL, now() - interval '1 second', false, 1,"
                    + " 0 FROM generate_series(0, " + (tasks - 1) + ") g");
            st.execute("ANALYZE " + TABLE);
        }
        probe.quiesce(TABLE);
        AtomicIntegerArray executions = new AtomicIntegerArray(tasks);
        AtomicLong handled = new AtomicLong();
        AtomicLong firstNanos = new AtomicLong();
        OneTimeTask<Void> task = Tasks.oneTime("baton-bench").execute((instance, ctx) -> {
            firstNanos.compareAndSet(0, System.nanoTime());
            executions.incrementAndGet(Integer.parseInt(instance.getId()));
            handled.incrementAndGet();
        });
        Scheduler scheduler = Scheduler.create(target.pool(), task)
                .tableName(TABLE)
                .threads(threads)
                .pollingInterval(Duration.ofMillis(500))
                .pollUsingLockAndFetch(1.0, 4.0)
                .build();
        long deadline = System.nanoTime()
                + Duration.ofSeconds(Math.max(60, tasks / 200)).toNanos();
        probe.begin();
        long t0 = System.nanoTime();
        long t1;
        long left;
        try {
            scheduler.start();
            while (handled.get() < tasks && System.nanoTime() < deadline) {
                Thread.sleep(2);
            }
            try (Connection c = target.pool().getConnection();
                    Statement st = c.createStatement()) {
                while ((left = Long.parseLong(Target.one(st, "SELECT count(*) FROM " + TABLE))) > 0
                        && System.nanoTime() < deadline) {
                    Thread.sleep(5);
                }
            }
            t1 = System.nanoTime();
            probe.end();
        } finally {
            scheduler.stop();
        }
        long duplicates = 0;
        long lost = 0;
        for (int i = 0; i < tasks; i++) {
            int n = executions.get(i);
            if (n > 1) {
                duplicates += n - 1;
            } else if (n == 0) {
                lost++;
            }
        }
        double seconds = (t1 - t0) / 1e9;
        double fromFirst = firstNanos.get() == 0 ? Double.NaN : (t1 - firstNanos.get()) / 1e9;
        String check = (duplicates == 0 && lost == 0 && left == 0 ? "ok: " : "FAILED: ") + duplicates
                + " duplicates, " + lost + " lost, " + left + " left; first execution → empty "
                + String.format("%.0f", tasks / fromFirst) + "/s";
        return Measurement.throughput(tasks, seconds, Latency.Summary.NONE, duplicates + lost + left, check);
    }

    @Override
    public void cleanup(Target target) throws SQLException {
        try (Connection c = target.pool().getConnection();
                Statement st = c.createStatement()) {
            st.execute("DROP TABLE IF EXISTS " + TABLE);
        }
    }
}
