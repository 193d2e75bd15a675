package dev.baton.spring.boot.actuate;

import dev.baton.spring.boot.BatonAutoConfiguration;
import dev.baton.spring.boot.BatonProperties;
import dev.baton.spring.boot.BatonQueues;
import org.springframework.boot.actuate.autoconfigure.endpoint.condition.ConditionalOnAvailableEndpoint;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.health.autoconfigure.contributor.ConditionalOnEnabledHealthIndicator;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Actuator support, when the application has it: the {@code baton} health indicator
 * ({@code management.health.baton.enabled}, default on) and the {@code baton} endpoint.
 */
@AutoConfiguration(after = BatonAutoConfiguration.class)
@ConditionalOnBean(BatonQueues.class)
public final class BatonActuatorAutoConfiguration {
    /** The health indicator, with Spring Boot's health module. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(HealthIndicator.class)
    @ConditionalOnEnabledHealthIndicator("baton")
    static final class Health {
        @Bean
        @ConditionalOnMissingBean(name = "batonHealthIndicator")
        BatonHealthIndicator batonHealthIndicator(BatonQueues queues, BatonProperties properties) {
            return new BatonHealthIndicator(queues, properties);
        }
    }

    /** The endpoint, with Spring Boot's Actuator. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = "org.springframework.boot.actuate.endpoint.annotation.Endpoint")
    @ConditionalOnAvailableEndpoint(BatonEndpoint.class)
    static final class EndpointConfiguration {
        @Bean
        @ConditionalOnMissingBean
        BatonEndpoint batonEndpoint(BatonQueues queues) {
            return new BatonEndpoint(queues);
        }
    }
}
