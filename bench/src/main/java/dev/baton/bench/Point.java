package dev.baton.bench;

/**
 * A point on a workload's x axis.
 *
 * @param axis what x is, e.g. {@code concurrency}, {@code threads}, {@code backlog}
 * @param x its value
 * @param label how the point is shown in tables, e.g. {@code c=16}
 */
public record Point(String axis, long x, String label) {

    /** A point labelled {@code axis=x}. */
    public static Point of(String axis, long x) {
        return new Point(axis, x, axis + "=" + x);
    }
}
