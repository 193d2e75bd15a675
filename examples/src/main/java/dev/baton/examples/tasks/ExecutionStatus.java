package dev.baton.examples.tasks;

import dev.baton.StateMachine;

/** Status of a task execution (seed 004), stored as integers in {@code task_executions.status}. */
public enum ExecutionStatus {
    /** Created by a trigger; waits for a worker (and, for a delayed trigger, for its time). */
    PENDING(1),
    /** One worker runs it: the compare-and-set {@code Status = 2 WHERE Status = 1} of the seed is the claim. */
    RUNNING(2),
    /** Ran to the end. */
    SUCCEEDED(3),
    /** Threw, or returned a failure. */
    FAILED(4);

    private final int code;

    ExecutionStatus(int code) {
        this.code = code;
    }

    /** The stored code. */
    public int code() {
        return code;
    }

    // tag::execution-machine[]
    /** PENDING → RUNNING by one worker; RUNNING → SUCCEEDED or FAILED, or back to PENDING if its worker died. */
    public static final StateMachine<ExecutionStatus> MACHINE = StateMachine.of(ExecutionStatus.class)
            .name("task-execution")
            .storedAs(ExecutionStatus::code)
            .initial(PENDING)
            .allow(PENDING, RUNNING)
            .allow(RUNNING, PENDING, SUCCEEDED, FAILED)
            .terminal(SUCCEEDED, FAILED)
            .build();
    // end::execution-machine[]
}
