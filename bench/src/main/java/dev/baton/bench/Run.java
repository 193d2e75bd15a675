package dev.baton.bench;

import java.time.Instant;

/**
 * One timed run as recorded: where, what, which repetition, what it measured, and the CPU over its timed interval.
 *
 * @param at when it ended
 * @param target database name
 * @param workload workload name
 * @param variant variant name
 * @param point point on the x axis
 * @param rep repetition, 1-based
 * @param order position of the variant within the repetition and point, 1-based
 * @param m the measurement
 * @param cpu CPU use during the timed interval
 */
public record Run(
        Instant at,
        String target,
        String workload,
        String variant,
        Point point,
        int rep,
        int order,
        Measurement m,
        CpuStat.Usage cpu) {}
