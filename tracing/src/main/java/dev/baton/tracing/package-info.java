/**
 * OpenTelemetry tracing for Baton: {@link dev.baton.tracing.BatonTracing}, an interceptor that carries the trace
 * context through the outbox and makes spans around claims and handlers.
 *
 * <p>Nullness: the package is {@link org.jspecify.annotations.NullMarked}: nothing is null unless its type is
 * annotated {@link org.jspecify.annotations.Nullable}.
 */
@NullMarked
package dev.baton.tracing;

import org.jspecify.annotations.NullMarked;
