package dev.baton.examples.tasks;

import static dev.baton.examples.jooq.Tables.TASKS;

import dev.baton.ClaimQueue;
import dev.baton.IdempotencyKeys;
import dev.baton.Worker;
import dev.baton.examples.support.ExampleMain;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Seed 004 in one run: the schedule fires on three hosts, a user clicks "execute now" twice and asks for a delayed
 * run, all for one task; one execution runs, the rest are skipped; once it ends, the next trigger runs again.
 *
 * <p>{@code java -cp examples/target/baton-demo.jar dev.baton.examples.tasks.TaskExample [--jdbc-url ...]}
 */
public final class TaskExample {
    private TaskExample() {}

    /** Runs the example. */
    public static void main(String[] args) {
        ExampleMain.main("Seed 004: task executions", args, TaskExample::run);
    }

    /** The example's body. */
    public static void run(ExampleMain.Session s) throws Exception {
        String keysTable = "baton_keys_" + s.schema().suffix();
        s.baton().ownTables().createIdempotencyKeysTable(keysTable);
        try {
            IdempotencyKeys keys = s.baton()
                    .idempotencyKeys(
                            keysTable, IdempotencyKeys.Options.defaults().lease(Duration.ofHours(1)));
            TaskRuns runs = new TaskRuns(s.baton(), s.dsl(), s.schema().table("task_executions"), keys);
            s.dsl()
                    .insertInto(TASKS, TASKS.ID, TASKS.TASK_TYPE, TASKS.PAYLOAD)
                    .values(7L, "Collect", "{\"neGroupId\":3}")
                    .execute();
            s.out().println("  schedule on host A: " + runs.trigger(7, TriggerSource.SCHEDULE, Duration.ZERO));
            s.out().println("  schedule on host B: " + runs.trigger(7, TriggerSource.SCHEDULE, Duration.ZERO));
            s.out().println("  execute now:        " + runs.trigger(7, TriggerSource.MANUAL, Duration.ZERO));
            s.out().println("  execute in 1 min:   " + runs.trigger(7, TriggerSource.DELAYED, Duration.ofMinutes(1)));
            Map<Long, AtomicInteger> executed = new ConcurrentHashMap<>();
            ClaimQueue<ExecutionStatus> queue = runs.queue();
            Worker a = runs.start(queue, (id, type, payload) -> count(executed, id, type), 2);
            Worker b = runs.start(queue, (id, type, payload) -> count(executed, id, type), 2);
            try {
                while (executed.isEmpty() || queue.health().inFlight() > 0) {
                    Thread.sleep(50);
                }
                Thread.sleep(200);
                s.out().println("  after the run:      " + runs.trigger(7, TriggerSource.MANUAL, Duration.ZERO));
                while (executed.get(7L).get() < 2 || queue.health().inFlight() > 0) {
                    Thread.sleep(50);
                }
            } finally {
                a.close();
                b.close();
            }
            s.out().println("  task 7 ran " + executed.get(7L) + " times, never twice at once");
        } finally {
            s.dsl().dropTableIfExists(keysTable).execute();
        }
    }

    private static String count(Map<Long, AtomicInteger> executed, long taskId, String type) throws Exception {
        executed.computeIfAbsent(taskId, k -> new AtomicInteger()).incrementAndGet();
        Thread.sleep(100); // collecting the network elements' logs
        return type + " done";
    }
}
