/**
 * OpenTelemetry tracing for the auto-configured Baton, present when the application has an {@code OpenTelemetry}
 * bean and {@code baton-tracing}. {@link org.jspecify.annotations.NullMarked}.
 */
@NullMarked
package dev.baton.spring.boot.tracing;

import org.jspecify.annotations.NullMarked;
