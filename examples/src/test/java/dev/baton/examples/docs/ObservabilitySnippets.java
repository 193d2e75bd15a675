package dev.baton.examples.docs;

import dev.baton.Baton;
import dev.baton.ClaimQueue;
import dev.baton.Outbox;
import dev.baton.micrometer.BatonMetrics;
import dev.baton.tracing.BatonTracing;
import io.micrometer.core.instrument.MeterRegistry;
import io.opentelemetry.api.OpenTelemetry;
import java.time.Duration;
import javax.sql.DataSource;

/** The code of docs/src/metrics-and-tracing.md, compiled. */
final class ObservabilitySnippets {
    private ObservabilitySnippets() {}

    // tag::micrometer-bind[]
    static Baton withMetrics(DataSource dataSource, MeterRegistry registry) {
        BatonMetrics metrics = new BatonMetrics(registry); // counters and timers, fed as a listener
        return Baton.builder(dataSource).listener(metrics).build();
    }
    // end::micrometer-bind[]

    // tag::micrometer-gauges[]
    static void gauges(MeterRegistry registry, ClaimQueue<?> queue, Outbox outbox) {
        // one health query per queue per 30 s at most, however often the registry is scraped
        new BatonMetrics(registry, Duration.ofSeconds(30)).monitor(queue).monitor(outbox);
    }
    // end::micrometer-gauges[]

    // tag::tracing-bind[]
    static Baton withTracing(DataSource dataSource, OpenTelemetry openTelemetry) {
        return Baton.builder(dataSource)
                .interceptor(new BatonTracing(openTelemetry)) // or .withoutClaimSpans()
                .build();
    }
    // end::tracing-bind[]
}
