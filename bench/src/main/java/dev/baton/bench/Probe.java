package dev.baton.bench;

/**
 * Handed to {@link Workload#run}: quiesces the database and brackets the timed part of a run with CPU samples. Not
 * thread-safe; one per run.
 */
public final class Probe {
    private final Target target;
    private CpuStat start;
    private CpuStat stop;
    private CpuStat.Usage usage;

    Probe(Target target) {
        this.target = target;
    }

    /** See {@link Target#quiesce}. */
    public void quiesce(String... tables) throws Exception {
        target.quiesce(tables);
    }

    /** Marks the start of the timed interval. */
    public void begin() {
        start = CpuStat.sample();
    }

    /** Marks its end. */
    public void end() {
        if (start == null) {
            throw new IllegalStateException("Probe.end() without begin()");
        }
        stop = CpuStat.sample();
        usage = stop.since(start);
    }

    /**
     * The CPU time this client JVM spent over the timed interval (every thread: Baton or the hand-written code, the
     * driver, the pool, the harness, JIT and GC), in microseconds per operation; NaN when the JVM does not report it.
     */
    public double clientCpuMicrosPer(long ops) {
        if (stop == null) {
            throw new IllegalStateException("Probe.clientCpuMicrosPer() before end()");
        }
        return start.jvmCpuNanos() < 0 || ops <= 0
                ? Double.NaN
                : (stop.jvmCpuNanos() - start.jvmCpuNanos()) / 1e3 / ops;
    }

    /** CPU use over the timed interval. */
    CpuStat.Usage usage() {
        if (usage == null) {
            throw new IllegalStateException("the workload did not call Probe.begin() and end()");
        }
        return usage;
    }
}
