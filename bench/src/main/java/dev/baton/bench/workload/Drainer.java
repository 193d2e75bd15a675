package dev.baton.bench.workload;

import dev.baton.bench.Measurement;
import dev.baton.bench.Probe;
import dev.baton.bench.Target;

/**
 * One system that drains a pre-filled queue of no-op tasks with a number of worker threads: a variant of the
 * {@link DrainWorkload}. Today db-scheduler ({@link DbSchedulerDrainer}); the Baton claim queue and worker plug in here
 * as {@code "baton"} once they exist, and then the summary reports Baton / db-scheduler end-to-end throughput.
 */
public interface Drainer {

    /** The variant name, e.g. {@code db-scheduler}, {@code baton}, {@code raw}. */
    String name();

    /** One line for the summary: the exact configuration. */
    String description();

    /** Whether this system runs on the target. */
    default boolean supports(Target target) {
        return true;
    }

    /**
     * Creates a fresh queue of {@code tasks} due tasks (untimed), calls {@link Probe#quiesce}, then times the drain:
     * {@link Probe#begin()} just before the workers start, {@link Probe#end()} when the queue is empty. Verifies that
     * every task ran exactly once: {@link Measurement#failures()} counts duplicates plus lost tasks.
     */
    Measurement drain(Target target, int threads, int tasks, Probe probe) throws Exception;

    /** Drops whatever {@link #drain} created. */
    void cleanup(Target target) throws Exception;
}
