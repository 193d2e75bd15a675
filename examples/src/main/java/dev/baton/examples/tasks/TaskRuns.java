package dev.baton.examples.tasks;

import static dev.baton.examples.jooq.Tables.TASKS;
import static dev.baton.examples.jooq.Tables.TASK_EXECUTIONS;

import dev.baton.Baton;
import dev.baton.BeginResult;
import dev.baton.ClaimQueue;
import dev.baton.ClaimedRow;
import dev.baton.Condition;
import dev.baton.IdempotencyKeys;
import dev.baton.IdempotencyToken;
import dev.baton.Outcome;
import dev.baton.RetryPolicy;
import dev.baton.Worker;
import dev.baton.examples.jooq.tables.records.TasksRecord;
import dev.baton.examples.support.Retry;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.util.HexFormat;
import org.jooq.DSLContext;
import org.jooq.Field;
import org.jooq.impl.DSL;

/**
 * Seed 004: background task executions. The schedule, a manual "execute now" and a delayed "execute in N minutes"
 * may all hit one task at once; they share one idempotency key per task ({@code TaskId=<id>}, as the seed's
 * executors make it), so only one of them creates an execution while one is pending or running, and the others are
 * skipped. Workers on every host claim PENDING executions (PENDING → RUNNING, the seed's compare-and-set) and the key
 * is released when the run ends, so a task never runs twice at once. Thread-safe.
 *
 * <p>The key's lease (one hour here) must outlast the longest wait plus run: after it, a trigger may take the key
 * over and create a second execution.
 */
public final class TaskRuns {
    /** The idempotency-key scope of task triggers. */
    public static final String SCOPE = "ne-task";

    private final Baton baton;
    private final DSLContext dsl;
    private final String executions;
    private final IdempotencyKeys keys;

    /** What a trigger did. */
    public sealed interface Trigger {
        /**
         * This trigger created an execution.
         *
         * @param executionId the execution
         */
        record Created(long executionId) implements Trigger {}

        /**
         * Another trigger's execution of the task is pending or running (or the task changed meanwhile).
         *
         * @param reason why
         */
        record Skipped(String reason) implements Trigger {}
    }

    /**
     * @param baton Baton on the database
     * @param dsl jOOQ on the database
     * @param executionsTable the task_executions table
     * @param keys the idempotency keys (lease: longer than the longest wait plus run)
     */
    public TaskRuns(Baton baton, DSLContext dsl, String executionsTable, IdempotencyKeys keys) {
        this.baton = baton;
        this.dsl = dsl;
        this.executions = executionsTable;
        this.keys = keys;
    }

    /** The seed's {@code CreateIdempotencyKey}: one key per task, whatever triggered it. */
    static String idempotencyKey(long taskId) {
        return "TaskId=" + taskId;
    }

    /**
     * Triggers a task: creates a PENDING execution, unless one of this task is pending or running.
     *
     * @param delay zero to run as soon as a worker is free, or how long to wait (by the database clock)
     */
    // tag::trigger[]
    public Trigger trigger(long taskId, TriggerSource source, Duration delay) {
        TasksRecord task = dsl.fetchOne(TASKS, TASKS.ID.eq(taskId));
        if (task == null) {
            return new Trigger.Skipped("no task " + taskId);
        }
        String key = idempotencyKey(taskId);
        String fingerprint = task.getTaskType() + ":" + sha256(task.getPayload());
        return Retry.transaction(
                baton,
                () -> dsl.transactionResult(tx -> tx.dsl().connectionResult(connection -> {
                    BeginResult begun = keys.begin(connection, SCOPE, key, fingerprint); // in jOOQ's transaction
                    if (!(begun instanceof BeginResult.Started started)) {
                        return new Trigger.Skipped(
                                begun instanceof BeginResult.Mismatch
                                        ? "task " + taskId + " changed while an execution of it is pending or running"
                                        : "task " + taskId + " is pending or running");
                    }
                    long id = tx.dsl()
                            .insertInto(TASK_EXECUTIONS)
                            .set(TASK_EXECUTIONS.TASK_ID, taskId)
                            .set(TASK_EXECUTIONS.TRIGGER_SOURCE, source.name())
                            .set(TASK_EXECUTIONS.IDEMPOTENCY_KEY, key)
                            .set(TASK_EXECUTIONS.KEY_FENCE, started.token().fence()) // who may release the key
                            .set(TASK_EXECUTIONS.STATUS, ExecutionStatus.PENDING.code())
                            .set(TASK_EXECUTIONS.EXECUTE_AT, delay.isZero() ? null : databaseNowPlus(delay))
                            .returningResult(TASK_EXECUTIONS.ID)
                            .fetchSingle()
                            .value1();
                    return new Trigger.Created(id); // the key and the execution commit together, or neither
                }))); // on MariaDB, racing inserts of one key can deadlock: the transaction is ours to retry
    }
    // end::trigger[]

    /** The claim queue over the executions: due PENDING rows, oldest first. */
    // tag::execution-queue[]
    public ClaimQueue<ExecutionStatus> queue() {
        return baton.<ExecutionStatus>queue("task-executions")
                .table(executions)
                .id("id")
                .claim("status", ExecutionStatus.MACHINE, ExecutionStatus.PENDING, ExecutionStatus.RUNNING)
                .eligibleWhen(Condition.due("execute_at")) // a delayed trigger waits for its time
                .select("task_id", "idempotency_key", "key_fence")
                .deadState(ExecutionStatus.FAILED)
                .retry(RetryPolicy.none()) // a failed run is FAILED (a crashed one is reclaimed and run again)
                .lease(Duration.ofMinutes(1)) // heartbeats extend it while the task runs
                .build();
    }
    // end::execution-queue[]

    /** Starts one host's worker pool of {@code concurrency} executions at a time. */
    // tag::execution-worker[]
    public Worker start(ClaimQueue<ExecutionStatus> queue, TaskExecutor executor, int concurrency) {
        return baton.worker(queue)
                .batchSize(concurrency)
                .concurrency(concurrency)
                .pollInterval(Duration.ofMillis(50), Duration.ofMillis(500))
                .handle(row -> run(row, executor))
                .start();
    }

    private Outcome<ExecutionStatus> run(ClaimedRow<ExecutionStatus> row, TaskExecutor executor) {
        long taskId = row.get("task_id", Long.class);
        IdempotencyToken key =
                new IdempotencyToken(SCOPE, row.get("idempotency_key", String.class), row.get("key_fence", Long.class));
        try {
            TasksRecord task = dsl.fetchSingle(TASKS, TASKS.ID.eq(taskId));
            String result = executor.run(taskId, task.getTaskType(), task.getPayload());
            return Outcome.<ExecutionStatus>complete(ExecutionStatus.SUCCEEDED)
                    .set("result", shorten(result))
                    .setNow("finished_at");
        } catch (Exception e) {
            return Outcome.deadLetter(e.toString()); // RUNNING → FAILED, the error kept in last_error
        } finally {
            keys.fail(key); // releases the key: the next trigger of this task may create an execution
        }
    }
    // end::execution-worker[]

    /** {@code now + delay} by the database clock, in the dialect Baton uses for this database. */
    private Field<OffsetDateTime> databaseNowPlus(Duration delay) {
        var dialect = baton.dialect();
        return DSL.field(
                dialect.sql().plusMillis(dialect.sql().currentTimestamp(), delay.toMillis()),
                TASK_EXECUTIONS.EXECUTE_AT.getDataType());
    }

    private static String shorten(String text) {
        return text == null || text.length() <= 1000 ? text : text.substring(0, 1000);
    }

    private static String sha256(String text) {
        try {
            byte[] digest = MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8));
            return HexFormat.of().formatHex(digest);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
