/**
 * Micrometer meters for the auto-configured Baton, present when the application has a {@code MeterRegistry} and
 * {@code baton-micrometer}. {@link org.jspecify.annotations.NullMarked}.
 */
@NullMarked
package dev.baton.spring.boot.metrics;

import org.jspecify.annotations.NullMarked;
