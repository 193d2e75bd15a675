package dev.baton.spring.boot.metrics;

import dev.baton.Baton;
import dev.baton.micrometer.BatonMetrics;
import dev.baton.spring.boot.BatonAutoConfiguration;
import dev.baton.spring.boot.BatonProperties;
import dev.baton.spring.boot.BatonQueues;
import io.micrometer.core.instrument.MeterRegistry;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

/**
 * Micrometer meters for the auto-configured {@link Baton}, when the application has Micrometer (a
 * {@link MeterRegistry} bean, as Spring Boot's Actuator defines) and {@code baton-micrometer} on the class path:
 *
 * <ul>
 *   <li>a {@link BatonMetrics} bean over the registry, unless the application defines one. It is a
 *       {@link dev.baton.BatonListener}, so {@link BatonAutoConfiguration} adds it to the {@code Baton} bean: the
 *       counters and timers count what that Baton commits;
 *   <li>once every singleton exists, the gauges of every queue of {@link BatonQueues}: each {@code QueueWorker},
 *       {@code ClaimQueue} and {@code Outbox} bean, read at most once per {@code baton.metrics.gauge-refresh}
 *       (default 15 s).
 * </ul>
 *
 * <p>A {@code Baton} bean of the application's own gets the counters only if it adds the {@code BatonMetrics} bean
 * as a listener itself.
 */
// the registry's auto-configuration in Spring Boot 4, and in Spring Boot 3
@AutoConfiguration(
        after = BatonAutoConfiguration.class,
        afterName = {
            "org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration",
            "org.springframework.boot.actuate.autoconfigure.metrics.CompositeMeterRegistryAutoConfiguration"
        })
@ConditionalOnClass({BatonMetrics.class, MeterRegistry.class})
@ConditionalOnBean({MeterRegistry.class, BatonProperties.class})
public final class BatonMetricsAutoConfiguration {
    /** Used by Spring. */
    BatonMetricsAutoConfiguration() {}

    /**
     * The meters, a listener of the auto-configured Baton.
     *
     * @param registry the application's registry
     * @param properties the gauges' refresh interval
     * @return the meters
     */
    @Bean
    @ConditionalOnMissingBean
    BatonMetrics batonMetrics(MeterRegistry registry, BatonProperties properties) {
        return new BatonMetrics(registry, properties.metrics().gaugeRefresh());
    }

    /**
     * Registers the gauges of every queue once the context's singletons exist (every queue bean is defined by then).
     *
     * @param metrics the meters
     * @param queues the application's queues, when Baton is configured
     * @return the callback
     */
    @Bean
    static SmartInitializingSingleton batonQueueGauges(
            ObjectProvider<BatonMetrics> metrics, ObjectProvider<BatonQueues> queues) {
        return () -> queues.ifAvailable(
                q -> metrics.ifAvailable(m -> q.queues().values().forEach(m::monitor)));
    }
}
