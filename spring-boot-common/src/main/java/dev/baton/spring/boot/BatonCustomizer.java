package dev.baton.spring.boot;

import dev.baton.Baton;

/**
 * Changes the auto-configured {@link Baton} before it is built: declare one or more as beans (they run in
 * {@link org.springframework.core.annotation.Order} order). Listener beans ({@link dev.baton.BatonListener}) are
 * added without one.
 *
 * <pre>{@code
 * @Bean
 * BatonCustomizer transientRetry() {
 *     return builder -> builder.transientRetry(RetryPolicy.exponential(Duration.ofMillis(20), 2.0).maxAttempts(4));
 * }
 * }</pre>
 */
@FunctionalInterface
public interface BatonCustomizer {
    /**
     * Changes the builder.
     *
     * @param builder the builder, over the application's {@code DataSource}
     */
    void customize(Baton.Builder builder);
}
