package dev.baton.spring.boot.actuate;

import dev.baton.spring.boot.BatonAutoConfiguration;
import dev.baton.spring.boot.BatonQueues;
import org.springframework.boot.actuate.autoconfigure.endpoint.condition.ConditionalOnAvailableEndpoint;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

/**
 * The {@code baton} Actuator endpoint, when the application has Spring Boot's Actuator. The same class in Boot 3.5
 * and Boot 4: the endpoint's packages did not move. The health indicator is each starter's own.
 */
@AutoConfiguration(after = BatonAutoConfiguration.class)
@ConditionalOnBean(BatonQueues.class)
@ConditionalOnClass(name = "org.springframework.boot.actuate.endpoint.annotation.Endpoint")
public final class BatonEndpointAutoConfiguration {
    /** Used by Spring. */
    BatonEndpointAutoConfiguration() {}

    /**
     * The endpoint.
     *
     * @param queues the application's queues
     * @return the endpoint
     */
    @Bean
    @ConditionalOnMissingBean
    @ConditionalOnAvailableEndpoint(BatonEndpoint.class)
    BatonEndpoint batonEndpoint(BatonQueues queues) {
        return new BatonEndpoint(queues);
    }
}
