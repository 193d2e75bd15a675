package dev.baton.examples.tasks;

import static dev.baton.examples.jooq.Tables.TASKS;
import static dev.baton.examples.jooq.Tables.TASK_EXECUTIONS;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.baton.ClaimQueue;
import dev.baton.IdempotencyKeys;
import dev.baton.Worker;
import dev.baton.examples.Fixture;
import dev.baton.testservers.TestDatabase;
import dev.baton.testservers.TestServer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.MethodSource;

/** Seed 004 on each server: triggers share a key, one execution per task at a time, never two runs at once. */
@ParameterizedClass(name = "{0}")
@MethodSource("dev.baton.examples.Servers#all")
class TaskExampleTest {
    /** The server of this run. */
    @Parameter
    TestServer server;

    /** A fixture with Baton's idempotency-key table next to the example schema. */
    private static final class Jobs implements AutoCloseable {
        final Fixture f;
        final String keysTable;
        final TaskRuns runs;

        Jobs(Supplier<TestDatabase> server) {
            f = Fixture.on(server);
            keysTable = "baton_keys_" + f.schema.suffix();
            f.baton.ownTables().createIdempotencyKeysTable(keysTable);
            // tag::task-keys[]
            IdempotencyKeys keys = f.baton.idempotencyKeys(
                    keysTable, IdempotencyKeys.Options.defaults().lease(Duration.ofHours(1)));
            // end::task-keys[]
            runs = new TaskRuns(f.baton, f.dsl, f.table("task_executions"), keys);
            for (long id = 1; id <= 3; id++) {
                f.dsl.insertInto(TASKS)
                        .set(TASKS.ID, id)
                        .set(TASKS.TASK_TYPE, "Parse")
                        .set(TASKS.PAYLOAD, "{\"neGroupId\":" + id + "}")
                        .execute();
            }
        }

        int executions(ExecutionStatus status) {
            return f.dsl.fetchCount(TASK_EXECUTIONS, TASK_EXECUTIONS.STATUS.eq(status.code()));
        }

        void awaitIdle() throws InterruptedException {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (executions(ExecutionStatus.PENDING) + executions(ExecutionStatus.RUNNING) > 0) {
                if (System.nanoTime() > deadline) {
                    throw new AssertionError("executions did not finish");
                }
                Thread.sleep(50);
            }
        }

        @Override
        public void close() {
            f.db.dropTableIfExists(keysTable);
            f.close();
        }
    }

    @Test
    void scheduleManualAndDelayedTriggersShareTheTasksKey() throws Exception {
        try (Jobs jobs = new Jobs(server)) {
            TaskRuns.Trigger first = jobs.runs.trigger(1, TriggerSource.SCHEDULE, Duration.ZERO);
            assertInstanceOf(TaskRuns.Trigger.Created.class, first);
            assertInstanceOf(TaskRuns.Trigger.Skipped.class, jobs.runs.trigger(1, TriggerSource.MANUAL, Duration.ZERO));
            assertInstanceOf(
                    TaskRuns.Trigger.Skipped.class, jobs.runs.trigger(1, TriggerSource.DELAYED, Duration.ofMinutes(5)));
            assertInstanceOf(
                    TaskRuns.Trigger.Created.class,
                    jobs.runs.trigger(2, TriggerSource.MANUAL, Duration.ZERO),
                    "another task has its own key");
            jobs.f
                    .dsl
                    .update(TASKS)
                    .set(TASKS.PAYLOAD, "{\"deviceId\":9}")
                    .where(TASKS.ID.eq(1L))
                    .execute();
            TaskRuns.Trigger changed = jobs.runs.trigger(1, TriggerSource.MANUAL, Duration.ZERO);
            assertTrue(((TaskRuns.Trigger.Skipped) changed).reason().contains("changed"), changed.toString());

            ClaimQueue<ExecutionStatus> queue = jobs.runs.queue();
            Worker worker = jobs.runs.start(queue, (id, type, payload) -> type + " " + payload, 2);
            try {
                jobs.awaitIdle();
                assertEquals(2, jobs.executions(ExecutionStatus.SUCCEEDED));
                TaskRuns.Trigger again = jobs.runs.trigger(1, TriggerSource.SCHEDULE, Duration.ofMillis(300));
                assertInstanceOf(TaskRuns.Trigger.Created.class, again, "the finished run released the key");
                Thread.sleep(100);
                assertEquals(1, jobs.executions(ExecutionStatus.PENDING), "a delayed execution waits for its time");
                jobs.awaitIdle();
                assertEquals(
                        "Parse {\"deviceId\":9}",
                        jobs.f.dsl.fetchValue(
                                TASK_EXECUTIONS.RESULT,
                                TASK_EXECUTIONS.ID.eq(((TaskRuns.Trigger.Created) again).executionId())));
            } finally {
                worker.close();
            }
        }
    }

    @Test
    void workersOnThreeHostsNeverRunOneTaskTwiceAtOnce() throws Exception {
        try (Jobs jobs = new Jobs(server)) {
            Map<Long, AtomicInteger> running = new ConcurrentHashMap<>();
            AtomicInteger overlaps = new AtomicInteger();
            AtomicInteger runs = new AtomicInteger();
            TaskExecutor executor = (taskId, type, payload) -> {
                AtomicInteger now = running.computeIfAbsent(taskId, k -> new AtomicInteger());
                if (now.incrementAndGet() > 1) {
                    overlaps.incrementAndGet();
                }
                try {
                    Thread.sleep(20 + ThreadLocalRandom.current().nextInt(30));
                    if (ThreadLocalRandom.current().nextInt(10) == 0) {
                        throw new IllegalStateException("the network element did not answer");
                    }
                    return "ok";
                } finally {
                    now.decrementAndGet();
                    runs.incrementAndGet();
                }
            };
            ClaimQueue<ExecutionStatus> queue = jobs.runs.queue();
            List<Worker> hosts = new ArrayList<>();
            ExecutorService triggers = Executors.newFixedThreadPool(6);
            AtomicInteger created = new AtomicInteger();
            AtomicInteger skipped = new AtomicInteger();
            try {
                for (int h = 0; h < 3; h++) {
                    hosts.add(jobs.runs.start(queue, executor, 3));
                }
                List<Future<?>> futures = new ArrayList<>();
                for (int t = 0; t < 6; t++) {
                    futures.add(triggers.submit(() -> {
                        ThreadLocalRandom random = ThreadLocalRandom.current();
                        for (int i = 0; i < 30; i++) {
                            TriggerSource source = TriggerSource.values()[random.nextInt(3)];
                            Duration delay = source == TriggerSource.DELAYED
                                    ? Duration.ofMillis(random.nextInt(200))
                                    : Duration.ZERO;
                            TaskRuns.Trigger r = jobs.runs.trigger(1 + random.nextInt(3), source, delay);
                            (r instanceof TaskRuns.Trigger.Created ? created : skipped).incrementAndGet();
                            Thread.sleep(random.nextInt(20));
                        }
                        return null;
                    }));
                }
                for (Future<?> f : futures) {
                    f.get(120, TimeUnit.SECONDS);
                }
                jobs.awaitIdle();
            } finally {
                triggers.shutdownNow();
                hosts.forEach(Worker::close);
            }
            assertEquals(0, overlaps.get(), "a task ran twice at once");
            assertEquals(created.get(), runs.get(), "every created execution ran exactly once");
            assertEquals(
                    created.get(),
                    jobs.executions(ExecutionStatus.SUCCEEDED) + jobs.executions(ExecutionStatus.FAILED));
            assertTrue(skipped.get() > 0, "some triggers found their task pending or running");
            assertEquals(
                    0,
                    jobs.f.dsl.fetchCount(org.jooq.impl.DSL.table(org.jooq.impl.DSL.name(jobs.keysTable))),
                    "every key was released");
        }
    }
}
