package dev.baton.spring.boot.health;

import dev.baton.spring.boot.BatonAutoConfiguration;
import dev.baton.spring.boot.BatonProperties;
import dev.baton.spring.boot.BatonQueues;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.health.autoconfigure.contributor.ConditionalOnEnabledHealthIndicator;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.context.annotation.Bean;

/**
 * The {@code baton} health indicator ({@code management.health.baton.enabled}, default on), when the application has
 * Spring Boot 4's health module ({@code spring-boot-health}, part of Actuator).
 */
@AutoConfiguration(after = BatonAutoConfiguration.class)
@ConditionalOnBean(BatonQueues.class)
@ConditionalOnClass(HealthIndicator.class)
@ConditionalOnEnabledHealthIndicator("baton")
public final class BatonHealthAutoConfiguration {
    /** Used by Spring. */
    BatonHealthAutoConfiguration() {}

    /**
     * The indicator.
     *
     * @param queues the application's queues
     * @param properties the thresholds
     * @return the indicator
     */
    @Bean
    @ConditionalOnMissingBean(name = "batonHealthIndicator")
    BatonHealthIndicator batonHealthIndicator(BatonQueues queues, BatonProperties properties) {
        return new BatonHealthIndicator(queues, properties);
    }
}
