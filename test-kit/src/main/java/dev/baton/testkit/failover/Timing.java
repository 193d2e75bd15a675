package dev.baton.testkit.failover;

import java.time.Duration;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/** Waiting for a condition and measuring seconds, as the failover suites do. */
public final class Timing {
    private Timing() {}

    /**
     * Polls {@code done} every 100 ms.
     *
     * @throws AssertionError naming {@code what} when it does not hold within {@code seconds}
     */
    public static void await(String what, BooleanSupplier done, int seconds) throws InterruptedException {
        await(what, done, seconds, () -> "");
    }

    /** As {@link #await(String, BooleanSupplier, int)}; the failure message ends with {@code state}. */
    public static void await(String what, BooleanSupplier done, int seconds, Supplier<String> state)
            throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(seconds).toNanos();
        while (!done.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("not within " + seconds + " s: " + what + "; " + state.get());
            }
            Thread.sleep(100);
        }
    }

    /** Nanoseconds as seconds, rounded to hundredths. */
    public static double seconds(long nanos) {
        return Math.round(nanos / 1e7) / 100.0;
    }

    /** Seconds from {@code start} to {@code end} ({@link System#nanoTime()}), or -1 when {@code end} is 0 (never). */
    public static double since(long start, long end) {
        return end == 0 ? -1 : seconds(end - start);
    }
}
