package dev.baton.examples.spring;

import dev.baton.StateMachine;

/** Sync status of an order (seed 000): the timer job's claim column, stored as integers in {@code orders.sync_status}. */
public enum SyncStatus {
    /** Waiting to be pushed (once the order is PAID). */
    PENDING,
    /** Claimed by one worker, under a lease. */
    PROCESSING,
    /** Pushed; the third party's GUID is stored. */
    COMPLETED,
    /** Given up after the last attempt (a dead letter). */
    FAILED;

    /** The claim queue's machine. */
    public static final StateMachine<SyncStatus> MACHINE = StateMachine.of(SyncStatus.class)
            .name("sync")
            .storedAs(SyncStatus::ordinal)
            .initial(PENDING)
            .allow(PENDING, PROCESSING)
            .allow(PROCESSING, PENDING, COMPLETED, FAILED)
            .terminal(COMPLETED, FAILED)
            .build();
}
