package dev.baton.bench;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * A sample of the machine's CPU counters ({@code /proc/stat}, first line) and of this JVM's CPU time. The difference of
 * two samples gives busy, iowait and steal percentages over the interval. On a system without {@code /proc/stat} the
 * figures are NaN.
 *
 * @param user user + nice jiffies
 * @param system system + irq + softirq jiffies
 * @param idle idle jiffies
 * @param iowait iowait jiffies
 * @param steal steal jiffies (time the hypervisor ran something else while this VM wanted the CPU)
 * @param jvmCpuNanos CPU time of this JVM
 * @param wallNanos {@link System#nanoTime()} at the sample
 */
public record CpuStat(long user, long system, long idle, long iowait, long steal, long jvmCpuNanos, long wallNanos) {

    /** Takes a sample now. */
    public static CpuStat sample() {
        long jvm = jvmCpu();
        long wall = System.nanoTime();
        try {
            List<String> lines = Files.readAllLines(Path.of("/proc/stat"));
            String[] f = lines.get(0).trim().split("\\s+");
            long[] v = new long[9];
            for (int i = 0; i < v.length && i + 1 < f.length; i++) {
                v[i] = Long.parseLong(f[i + 1]);
            }
            // cpu user nice system idle iowait irq softirq steal guest
            return new CpuStat(v[0] + v[1], v[2] + v[5] + v[6], v[3], v[4], v[7], jvm, wall);
        } catch (IOException | RuntimeException e) {
            return new CpuStat(-1, -1, -1, -1, -1, jvm, wall);
        }
    }

    private static long jvmCpu() {
        if (ManagementFactory.getOperatingSystemMXBean() instanceof com.sun.management.OperatingSystemMXBean os) {
            return os.getProcessCpuTime();
        }
        return -1;
    }

    /** Percentages of the machine's CPU time between {@code start} and this sample. */
    public Usage since(CpuStat start) {
        long du = user - start.user;
        long ds = system - start.system;
        long di = idle - start.idle;
        long dw = iowait - start.iowait;
        long dst = steal - start.steal;
        long total = du + ds + di + dw + dst;
        int cpus = Runtime.getRuntime().availableProcessors();
        double wall = wallNanos - start.wallNanos;
        double jvm = start.jvmCpuNanos < 0 || wall <= 0
                ? Double.NaN
                : 100.0 * (jvmCpuNanos - start.jvmCpuNanos) / (wall * cpus);
        if (user < 0 || start.user < 0 || total <= 0) {
            return new Usage(Double.NaN, Double.NaN, Double.NaN, jvm);
        }
        return new Usage(100.0 * (du + ds) / total, 100.0 * dw / total, 100.0 * dst / total, jvm);
    }

    /**
     * CPU use over an interval, in percent of all the machine's CPUs.
     *
     * @param busy user + system (steal excluded)
     * @param iowait idle while waiting for I/O
     * @param steal stolen by the hypervisor
     * @param jvm of which this JVM (client side: Baton, drivers, pool, harness)
     */
    public record Usage(double busy, double iowait, double steal, double jvm) {}
}
