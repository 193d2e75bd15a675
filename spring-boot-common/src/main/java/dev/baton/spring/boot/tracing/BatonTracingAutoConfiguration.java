package dev.baton.spring.boot.tracing;

import dev.baton.spring.boot.BatonCustomizer;
import dev.baton.tracing.BatonTracing;
import io.opentelemetry.api.OpenTelemetry;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

/**
 * OpenTelemetry tracing for the auto-configured {@code Baton}, when the application has an {@link OpenTelemetry} bean
 * (Spring Boot's OpenTelemetry support defines one) and {@code baton-tracing} on the class path: a
 * {@link BatonTracing} bean over it, unless the application defines one (for example
 * {@code new BatonTracing(openTelemetry).withoutClaimSpans()}), added to the Baton's builder as an interceptor by a
 * {@link BatonCustomizer}. Outbox messages then carry the enqueuing trace context, and claims, handlers and
 * dispatches get spans.
 */
@AutoConfiguration(
        afterName = {
            "org.springframework.boot.opentelemetry.autoconfigure.OpenTelemetrySdkAutoConfiguration", // Boot 4
            "org.springframework.boot.actuate.autoconfigure.opentelemetry.OpenTelemetryAutoConfiguration" // Boot 3
        })
@ConditionalOnClass({BatonTracing.class, OpenTelemetry.class})
@ConditionalOnBean(OpenTelemetry.class)
public final class BatonTracingAutoConfiguration {
    /** Used by Spring. */
    BatonTracingAutoConfiguration() {}

    /**
     * The tracing interceptor.
     *
     * @param openTelemetry the application's OpenTelemetry
     * @return the interceptor
     */
    @Bean
    @ConditionalOnMissingBean
    BatonTracing batonTracing(OpenTelemetry openTelemetry) {
        return new BatonTracing(openTelemetry);
    }

    /**
     * Adds the {@link BatonTracing} bean to the auto-configured Baton.
     *
     * @param tracing the interceptor
     * @return the customizer
     */
    @Bean
    BatonCustomizer batonTracingCustomizer(BatonTracing tracing) {
        return builder -> builder.interceptor(tracing);
    }
}
