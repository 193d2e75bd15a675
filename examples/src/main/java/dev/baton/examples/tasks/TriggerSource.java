package dev.baton.examples.tasks;

/** What started an execution (seed 004). */
public enum TriggerSource {
    /** The cron schedule fired (on every host of the job service at once). */
    SCHEDULE,
    /** A user clicked "execute now" (perhaps twice). */
    MANUAL,
    /** A user asked for "execute in N minutes". */
    DELAYED
}
