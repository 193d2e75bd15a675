package dev.baton.bench;

/**
 * A point on a workload's x axis.
 *
 * @param axis what x is, e.g. {@code concurrency}, {@code threads}, {@code backlog}
 * @param x its value, unique among the workload's points
 * @param label how the point is shown in tables, e.g. {@code c=16}
 * @param series for a grid of two parameters, the line this point belongs to in the charts (e.g. {@code b=10}), else
 *     empty
 * @param plotX where the point goes on the chart's x axis (the other parameter of a grid, e.g. the worker count)
 */
public record Point(String axis, long x, String label, String series, long plotX) {

    /** A point of a single-parameter axis: one line per variant, plotted at {@code x}. */
    public Point(String axis, long x, String label) {
        this(axis, x, label, "", x);
    }

    /** A point labelled {@code axis=x}. */
    public static Point of(String axis, long x) {
        return new Point(axis, x, axis + "=" + x);
    }
}
