package dev.baton.testkit.compat;

import dev.baton.StateMachine;

/** Sync status of seed 000: the timer job's claim column, with the states of a non-idempotent sink. */
public enum Sync {
    /** Waiting to be pushed. */
    PENDING(0),
    /** Claimed by a worker. */
    PROCESSING(1),
    /** Pushed; the third party's id is stored. */
    COMPLETED(2),
    /** Gave up (dead letter). */
    FAILED(3),
    /** The push was recorded as about to happen (non-idempotent sink). */
    SENDING(4),
    /** The push may or may not have happened; awaiting reconciliation. */
    UNKNOWN(5);

    private final int code;

    Sync(int code) {
        this.code = code;
    }

    /** The stored code. */
    public int code() {
        return code;
    }

    /** The machine. */
    public static final StateMachine<Sync> MACHINE = StateMachine.of(Sync.class)
            .storedAs(Sync::code)
            .initial(PENDING)
            .allow(PENDING, PROCESSING)
            .allow(PROCESSING, PENDING, COMPLETED, FAILED, SENDING)
            .allow(SENDING, COMPLETED, UNKNOWN, FAILED, PENDING)
            .allow(UNKNOWN, COMPLETED, PENDING, FAILED)
            .terminal(COMPLETED, FAILED)
            .build();
}
