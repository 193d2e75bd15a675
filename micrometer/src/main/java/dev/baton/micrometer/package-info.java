/**
 * Micrometer meters for Baton: {@link dev.baton.micrometer.BatonMetrics}, a listener that counts and times what Baton
 * committed, and gauges per queue.
 *
 * <p>Nullness: the package is {@link org.jspecify.annotations.NullMarked}: nothing is null unless its type is
 * annotated {@link org.jspecify.annotations.Nullable}.
 */
@NullMarked
package dev.baton.micrometer;

import org.jspecify.annotations.NullMarked;
