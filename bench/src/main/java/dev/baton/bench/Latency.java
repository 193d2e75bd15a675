package dev.baton.bench;

/**
 * A small log-linear latency histogram (32 sub-buckets per power of two, so about 3 % precision) for the percentiles,
 * plus every value for an exact trimmed mean; one per thread, merged after the run. Not thread-safe.
 */
public final class Latency {
    private static final int SUB = 32;
    private static final int SHIFT = 5; // log2(SUB)
    private final long[] counts = new long[64 * SUB];
    private long n;
    private long sumNanos;
    private long[] values = new long[1024];

    /** Records one operation that took {@code nanos}. */
    public void record(long nanos) {
        long v = Math.max(0, nanos);
        counts[bucket(v)]++;
        if (n == values.length) {
            values = java.util.Arrays.copyOf(values, values.length * 2);
        }
        values[(int) n] = v;
        n++;
        sumNanos += v;
    }

    /** Adds another histogram's counts to this one. */
    public void add(Latency other) {
        for (int i = 0; i < counts.length; i++) {
            counts[i] += other.counts[i];
        }
        if (n + other.n > values.length) {
            values = java.util.Arrays.copyOf(values, (int) (n + other.n));
        }
        System.arraycopy(other.values, 0, values, (int) n, (int) other.n);
        n += other.n;
        sumNanos += other.sumNanos;
    }

    /** Mean, median, 99th percentile and the mean of the fastest 99 %, in microseconds. */
    public Summary summary() {
        if (n == 0) {
            return Summary.NONE;
        }
        long[] sorted = java.util.Arrays.copyOf(values, (int) n);
        java.util.Arrays.sort(sorted);
        int keep = (int) Math.max(1, Math.floor(n * 0.99));
        double sum = 0;
        for (int i = 0; i < keep; i++) {
            sum += sorted[i];
        }
        return new Summary(
                sumNanos / 1000.0 / n, quantile(0.50) / 1000.0, quantile(0.99) / 1000.0, sum / 1000.0 / keep);
    }

    private static int bucket(long v) {
        if (v < SUB) {
            return (int) v;
        }
        int exp = 63 - Long.numberOfLeadingZeros(v); // >= SHIFT
        int sub = (int) (v >>> (exp - SHIFT)) & (SUB - 1);
        return (exp - SHIFT + 1) * SUB + sub;
    }

    private static double lowerBound(int bucket) {
        if (bucket < SUB) {
            return bucket;
        }
        int exp = bucket / SUB - 1 + SHIFT;
        int sub = bucket % SUB;
        return (double) (1L << exp) + ((double) sub * (1L << (exp - SHIFT)));
    }

    private double quantile(double q) {
        long rank = (long) Math.ceil(q * n);
        long seen = 0;
        for (int i = 0; i < counts.length; i++) {
            seen += counts[i];
            if (seen >= rank) {
                double lo = lowerBound(i);
                double hi = i + 1 < counts.length ? lowerBound(i + 1) : lo;
                return (lo + hi) / 2;
            }
        }
        return 0;
    }

    /**
     * Latency figures in microseconds.
     *
     * @param meanMicros mean
     * @param p50Micros median
     * @param p99Micros 99th percentile
     * @param trimmedMeanMicros mean of the fastest 99 % (without the stalls that another tenant of the machine causes
     *     at random, which at c=1 can dominate a short run's mean)
     */
    public record Summary(double meanMicros, double p50Micros, double p99Micros, double trimmedMeanMicros) {
        /** No latency recorded. */
        public static final Summary NONE = new Summary(Double.NaN, Double.NaN, Double.NaN, Double.NaN);
    }
}
