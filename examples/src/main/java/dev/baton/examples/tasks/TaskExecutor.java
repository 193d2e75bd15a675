package dev.baton.examples.tasks;

/** The work of one task type (the seed's strategy interface). */
@FunctionalInterface
public interface TaskExecutor {
    /**
     * Runs the task.
     *
     * @return a short result text, kept with the execution
     * @throws Exception when the run failed; the execution becomes FAILED
     */
    String run(long taskId, String taskType, String payload) throws Exception;
}
