package dev.baton.spring.boot;

import dev.baton.spring.boot.health.BatonHealthIndicator;
import org.springframework.context.ConfigurableApplicationContext;

/** The shared auto-configuration tests on Spring Boot 3.5, with Boot 3.5's health types. */
class BatonAutoConfigurationTest extends AbstractBatonAutoConfigurationTest {
    @Override
    protected Health health(ConfigurableApplicationContext ctx) {
        var h = ctx.getBean(BatonHealthIndicator.class).health();
        return new Health(h.getStatus().getCode(), h.getDetails());
    }
}
