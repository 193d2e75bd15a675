package dev.baton.examples.payment;

import dev.baton.StateMachine;

/**
 * Sync status of an order (seed 000): the timer job's claim column, stored as integers in {@code orders.sync_status}.
 * SENDING and UNKNOWN are used when the third party cannot deduplicate (a non-idempotent sink).
 */
public enum SyncStatus {
    /** Waiting to be pushed (once the order is PAID). */
    PENDING(0),
    /** Claimed by one worker, under a lease. */
    PROCESSING(1),
    /** Pushed; the third party's GUID is stored. */
    COMPLETED(2),
    /** Given up after the last attempt (a dead letter). */
    FAILED(3),
    /** The push is about to be made (recorded before a call that cannot be repeated safely). */
    SENDING(4),
    /** The push may or may not have happened: waits for reconciliation, never re-sent blindly. */
    UNKNOWN(5);

    private final int code;

    SyncStatus(int code) {
        this.code = code;
    }

    /** The stored code. */
    public int code() {
        return code;
    }

    // tag::sync-machine[]
    /** The claim queue's machine: PENDING → PROCESSING → COMPLETED, with retries, dead letters and unknown sends. */
    public static final StateMachine<SyncStatus> MACHINE = StateMachine.of(SyncStatus.class)
            .name("sync")
            .storedAs(SyncStatus::code)
            .initial(PENDING)
            .allow(PENDING, PROCESSING)
            .allow(PROCESSING, PENDING, COMPLETED, FAILED, SENDING)
            .allow(SENDING, COMPLETED, UNKNOWN, FAILED, PENDING)
            .allow(UNKNOWN, COMPLETED, PENDING, FAILED)
            .terminal(COMPLETED, FAILED)
            .build();
    // end::sync-machine[]
}
