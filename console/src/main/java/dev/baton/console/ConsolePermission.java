package dev.baton.console;

/** What a console user may do: look, or also act. */
public enum ConsolePermission {
    /** See the queues, their dead letters and unknown sends. */
    READ,
    /** Requeue, resolve, pause and resume (only on a console built with {@code operate(true)}). */
    OPERATE
}
