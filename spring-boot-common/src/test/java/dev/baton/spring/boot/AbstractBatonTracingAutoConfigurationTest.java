package dev.baton.spring.boot;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.baton.OutboxMessage;
import dev.baton.TransitionResult;
import dev.baton.spring.boot.Orders.Pay;
import dev.baton.testservers.TestDatabase;
import dev.baton.testservers.TestServer;
import dev.baton.tracing.BatonTracing;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.context.Scope;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.EnumSource;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * With an {@code OpenTelemetry} bean, the starter's Baton traces: a message enqueued inside a span carries its
 * context, the dispatcher's span continues that trace, and the worker's handler calls get spans; on each server.
 * Each starter extends it with its Spring Boot.
 */
@ParameterizedClass(name = "{0}")
@EnumSource(
        value = TestServer.class,
        names = {"POSTGRES_LOCAL", "POSTGRES_EMBEDDED", "MARIADB_LOCAL", "MARIADB_EMBEDDED"})
public abstract class AbstractBatonTracingAutoConfigurationTest {
    @Parameter
    TestServer server;

    /** An OpenTelemetry SDK that keeps its spans in memory. */
    @Configuration(proxyBeanMethods = false)
    static class TracingConfig {
        @Bean
        InMemorySpanExporter spans() {
            return InMemorySpanExporter.create();
        }

        @Bean(destroyMethod = "close")
        OpenTelemetrySdk openTelemetry(InMemorySpanExporter spans) {
            return OpenTelemetrySdk.builder()
                    .setTracerProvider(SdkTracerProvider.builder()
                            .addSpanProcessor(SimpleSpanProcessor.create(spans))
                            .build())
                    .build();
        }
    }

    @Test
    @SuppressWarnings("try") // the scope is closed, never read
    void theOutboxCarriesTheEnqueuingTraceToTheDispatchSpanAndHandlersGetSpans() throws Exception {
        TestDatabase db = server.get();
        try (Orders orders = new Orders(db);
                ConfigurableApplicationContext ctx = TestApp.start(
                        db, orders, List.of(TracingConfig.class), "test.worker=true", "test.dispatcher=true")) {
            ctx.getBean(BatonTracing.class); // the interceptor bean exists
            InMemorySpanExporter spans = ctx.getBean(InMemorySpanExporter.class);
            orders.insert(1, Pay.PENDING);
            Span request = ctx.getBean(OpenTelemetrySdk.class)
                    .getTracer("test")
                    .spanBuilder("POST /gateway/callback")
                    .startSpan();
            try (Scope ignored = request.makeCurrent()) {
                assertInstanceOf(
                        TransitionResult.Applied.class,
                        ctx.getBean(TestApp.PaymentService.class).pay(1, "gw-1", false));
            } finally {
                request.end();
            }
            String traceId = request.getSpanContext().getTraceId();

            Await.until(() -> find(spans, "dispatch payment.paid").isPresent()
                    && find(spans, "handle order-sync").isPresent());
            OutboxMessage delivered =
                    ctx.getBean(TestApp.Delivered.class).messages.get(0);
            assertTrue(
                    delivered.headers().get("traceparent").contains(traceId),
                    delivered.headers().toString());
            SpanData dispatch = find(spans, "dispatch payment.paid").orElseThrow();
            assertEquals(traceId, dispatch.getTraceId(), "the dispatch continues the request's trace");
            assertEquals(request.getSpanContext().getSpanId(), dispatch.getParentSpanId());
            SpanData handle = find(spans, "handle order-sync").orElseThrow();
            assertEquals(
                    "1",
                    handle.getAttributes().get(io.opentelemetry.api.common.AttributeKey.stringKey(BatonTracing.ID)));
            assertEquals(
                    "complete",
                    handle.getAttributes()
                            .get(io.opentelemetry.api.common.AttributeKey.stringKey(BatonTracing.OUTCOME)));
        }
    }

    private static Optional<SpanData> find(InMemorySpanExporter spans, String name) {
        return spans.getFinishedSpanItems().stream()
                .filter(s -> s.getName().equals(name))
                .findFirst();
    }
}
