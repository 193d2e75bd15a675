/**
 * Baton's Spring Boot auto-configuration, the same for the Boot 3.5 and Boot 4 starters: the auto-configured {@link dev.baton.Baton} bean over the application's
 * {@code DataSource} ({@link dev.baton.spring.boot.BatonAutoConfiguration}), workers as beans
 * ({@link dev.baton.spring.boot.QueueWorker}, run by {@link dev.baton.spring.boot.BatonWorkers}), and the settings
 * under {@code baton.*} ({@link dev.baton.spring.boot.BatonProperties}).
 *
 * <p>Nullness: the package is {@link org.jspecify.annotations.NullMarked}: nothing is null unless its type is
 * annotated {@link org.jspecify.annotations.Nullable}.
 */
@NullMarked
package dev.baton.spring.boot;

import org.jspecify.annotations.NullMarked;
