package dev.baton.bench;

/**
 * What one timed run measured.
 *
 * @param ops operations completed in the timed interval (transitions, executions, rows)
 * @param seconds length of the timed interval
 * @param value the workload's primary metric (see {@link Workload#unit()}), usually {@code ops / seconds}
 * @param latency per-operation latency in the timed interval, or {@link Latency.Summary#NONE}
 * @param failures operations that went wrong: failed guarded updates, duplicate or lost executions; 0 when healthy
 * @param check the run's verification, e.g. {@code ok: 0 failed CAS, state counts match}
 * @param cpuMicrosPerOp client thread CPU per operation, or NaN when not measured
 * @param allocatedBytesPerOp client thread allocation per operation, or NaN when not measured
 */
public record Measurement(
        long ops,
        double seconds,
        double value,
        Latency.Summary latency,
        long failures,
        String check,
        double cpuMicrosPerOp,
        double allocatedBytesPerOp) {

    /** A throughput measurement: {@code value = ops / seconds}, no CPU per operation. */
    public static Measurement throughput(
            long ops, double seconds, Latency.Summary latency, long failures, String check) {
        return new Measurement(ops, seconds, ops / seconds, latency, failures, check, Double.NaN, Double.NaN);
    }

    /** This measurement with {@code note} appended to its check text. */
    public Measurement withNote(String note) {
        return new Measurement(
                ops, seconds, value, latency, failures, check + "; " + note, cpuMicrosPerOp, allocatedBytesPerOp);
    }

    /** This measurement with the client CPU per operation of {@code probe}'s timed interval. */
    public Measurement withClientCpu(Probe probe) {
        return new Measurement(
                ops, seconds, value, latency, failures, check, probe.clientCpuMicrosPer(ops), allocatedBytesPerOp);
    }
}
