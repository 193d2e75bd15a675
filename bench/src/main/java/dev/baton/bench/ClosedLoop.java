package dev.baton.bench;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Closed-loop load: {@code threads} threads each run their step back to back, for a warm-up and then a measured
 * interval. An operation counts (and its latency is recorded) when it started inside the measured interval; every
 * failed step counts, warm-up included.
 *
 * <p>With several variants, all threads switch variant together every slice (about 200 ms) in the order A B B A A B B A
 * …, and each variant's throughput is its operations over the total length of its slices. A burst of load from other
 * tenants of the machine, a checkpoint or an autovacuum then falls on both variants alike, which whole-run alternation
 * cannot promise on a shared machine.
 */
public final class ClosedLoop {

    /** The work of one thread for one variant. */
    @FunctionalInterface
    public interface Step {
        /** Performs one operation; returns false when it did not do what it should (e.g. a guarded update missed). */
        boolean run() throws Exception;
    }

    /** Creates the step of thread {@code w} (0-based) for variant {@code v} (0-based). */
    @FunctionalInterface
    public interface Steps {
        /** The step. */
        Step of(int variant, int w);
    }

    /**
     * Totals of one variant in one closed-loop run.
     *
     * @param ops operations started inside its measured slices
     * @param seconds total length of its measured slices
     * @param latency latency of those operations
     * @param failures failed steps of this variant during the whole run, warm-up included
     * @param allOps steps of this variant executed, warm-up included
     * @param cpuMicrosPerOp CPU time of the calling thread per measured operation (user + system, so the driver's
     *     socket calls included), or NaN when not measured
     * @param allocatedBytesPerOp bytes the calling thread allocated per measured operation, or NaN when not measured
     */
    public record Result(
            long ops,
            double seconds,
            Latency.Summary latency,
            long failures,
            long allOps,
            double cpuMicrosPerOp,
            double allocatedBytesPerOp) {}

    private ClosedLoop() {}

    /** One variant, measured for {@code measureSeconds}. */
    public static Result run(int threads, Steps steps, double warmupSeconds, double measureSeconds, Probe probe)
            throws Exception {
        return run(threads, 1, steps, warmupSeconds, measureSeconds, measureSeconds, false, probe)
                .get(0);
    }

    /**
     * Several variants interleaved in slices; each variant is measured for about {@code measureSeconds} in all. With
     * {@code sliceSeconds <= 0} every thread instead alternates the variants operation by operation for
     * {@code measureSeconds}, and each variant's {@link Result#seconds()} is that whole interval. With
     * {@code threadCpu}, each measured operation's thread CPU time and allocated bytes are taken too (four counter reads
     * per operation, on every variant alike). The probe (may be null for an unrecorded JIT warm-up) is begun and ended
     * around the measured interval.
     */
    public static List<Result> run(
            int threads,
            int variants,
            Steps steps,
            double warmupSeconds,
            double measureSeconds,
            double sliceSeconds,
            boolean threadCpu,
            Probe probe)
            throws Exception {
        Control control = new Control();
        boolean perOp = variants > 1 && sliceSeconds <= 0;
        List<Worker> workers = new ArrayList<>();
        for (int w = 0; w < threads; w++) {
            Step[] s = new Step[variants];
            for (int v = 0; v < variants; v++) {
                s[v] = steps.of(v, w);
            }
            workers.add(new Worker(s, control, perOp, threadCpu));
        }
        List<Thread> ts = new ArrayList<>();
        for (int w = 0; w < threads; w++) {
            Thread t = new Thread(workers.get(w), "bench-" + w);
            t.setDaemon(true);
            ts.add(t);
            t.start();
        }
        long[] sliceNanos = new long[variants];
        int slices =
                variants == 1 || perOp ? 1 : Math.max(2, (int) Math.round(measureSeconds * variants / sliceSeconds));
        slices += slices % 2 == 1 && !perOp && variants > 1 ? 1 : 0; // even, so that ABBA pairs are complete
        double slice = perOp ? measureSeconds : measureSeconds * variants / slices;
        try {
            control.go.countDown();
            // warm-up: alternate too, so both variants reach the measured part equally warm
            int warmSlices = variants == 1 || perOp ? 1 : Math.max(variants, (int) Math.round(warmupSeconds / slice));
            for (int i = 0; i < warmSlices; i++) {
                control.variant = i % variants;
                sleep(warmupSeconds / warmSlices, control);
            }
            if (probe != null) {
                probe.begin();
            }
            for (int i = 0; i < slices; i++) {
                int v = abba(i, variants);
                control.variant = v;
                long t0 = System.nanoTime();
                control.measuring = true;
                sleep(slice, control);
                control.measuring = false;
                long elapsed = System.nanoTime() - t0;
                if (perOp) {
                    java.util.Arrays.fill(sliceNanos, elapsed);
                } else {
                    sliceNanos[v] += elapsed;
                }
            }
            if (probe != null) {
                probe.end();
            }
        } finally {
            control.stop = true;
            control.go.countDown();
            for (Thread t : ts) {
                t.join();
            }
        }
        if (control.error.get() != null) {
            throw new IllegalStateException("a benchmark thread failed", control.error.get());
        }
        List<Result> out = new ArrayList<>();
        for (int v = 0; v < variants; v++) {
            Latency all = new Latency();
            long ops = 0;
            long failures = 0;
            long allOps = 0;
            long cpu = 0;
            long bytes = 0;
            for (Worker w : workers) {
                all.add(w.latency[v]);
                ops += w.ops[v];
                failures += w.failures[v];
                allOps += w.allOps[v];
                cpu += w.cpuNanos[v];
                bytes += w.allocated[v];
            }
            double cpuPerOp = threadCpu && ops > 0 ? cpu / 1000.0 / ops : Double.NaN;
            double bytesPerOp = threadCpu && ops > 0 ? bytes / (double) ops : Double.NaN;
            out.add(new Result(ops, sliceNanos[v] / 1e9, all.summary(), failures, allOps, cpuPerOp, bytesPerOp));
        }
        return out;
    }

    /** Slice i's variant: A B B A A B B A … for two variants, round robin reversed every round for more. */
    static int abba(int i, int variants) {
        int round = i / variants;
        int pos = i % variants;
        return round % 2 == 0 ? pos : variants - 1 - pos;
    }

    private static void sleep(double seconds, Control control) throws InterruptedException {
        long until = System.nanoTime() + (long) (seconds * 1e9);
        while (control.error.get() == null) {
            long left = until - System.nanoTime();
            if (left <= 0) {
                return;
            }
            Thread.sleep(Math.min(50, Math.max(1, left / 1_000_000)));
        }
    }

    private static final class Control {
        volatile boolean measuring;
        volatile boolean stop;
        volatile int variant;
        final AtomicReference<Throwable> error = new AtomicReference<>();
        final CountDownLatch go = new CountDownLatch(1);
    }

    private static final class Worker implements Runnable {
        private final Step[] steps;
        private final Control control;
        final Latency[] latency;
        final long[] ops;
        final long[] failures;
        final long[] allOps;

        final long[] cpuNanos;
        final long[] allocated;
        private final boolean perOp;
        private final boolean threadCpu;

        Worker(Step[] steps, Control control, boolean perOp, boolean threadCpu) {
            this.steps = steps;
            this.control = control;
            this.perOp = perOp;
            this.threadCpu = threadCpu;
            int n = steps.length;
            latency = new Latency[n];
            for (int i = 0; i < n; i++) {
                latency[i] = new Latency();
            }
            ops = new long[n];
            failures = new long[n];
            allOps = new long[n];
            cpuNanos = new long[n];
            allocated = new long[n];
        }

        @Override
        public void run() {
            try {
                control.go.await();
                ThreadMXBean mx = ManagementFactory.getThreadMXBean();
                com.sun.management.ThreadMXBean alloc = (com.sun.management.ThreadMXBean) mx;
                long n = 0;
                while (!control.stop) {
                    boolean measured = control.measuring;
                    int v = perOp ? (int) (n++ % steps.length) : control.variant;
                    long c0 = threadCpu ? mx.getCurrentThreadCpuTime() : 0;
                    long a0 = threadCpu ? alloc.getCurrentThreadAllocatedBytes() : 0;
                    long s = System.nanoTime();
                    boolean ok = steps[v].run();
                    long e = System.nanoTime();
                    if (threadCpu && measured) {
                        allocated[v] += alloc.getCurrentThreadAllocatedBytes() - a0;
                        cpuNanos[v] += mx.getCurrentThreadCpuTime() - c0;
                    }
                    allOps[v]++;
                    if (!ok) {
                        failures[v]++;
                    }
                    if (measured) {
                        ops[v]++;
                        latency[v].record(e - s);
                    }
                }
            } catch (Throwable t) {
                control.error.compareAndSet(null, t);
                control.stop = true;
            }
        }
    }
}
