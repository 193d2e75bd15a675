package dev.baton.tracing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.baton.Baton;
import dev.baton.ClaimQueue;
import dev.baton.Message;
import dev.baton.Outbox;
import dev.baton.Outcome;
import dev.baton.RetryPolicy;
import dev.baton.StateTable;
import dev.baton.Worker;
import dev.baton.testkit.DatabaseSuite;
import dev.baton.testkit.compat.JobsTable;
import dev.baton.testkit.compat.Payment;
import dev.baton.testkit.compat.Sync;
import dev.baton.testservers.TestDatabase;
import dev.baton.testservers.TestDatabases;
import dev.baton.testservers.TestServer;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanContext;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.context.Scope;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import java.sql.Connection;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.EnumSource;

/** Trace context through the outbox, and spans around claims and handlers, on each PostgreSQL and MariaDB. */
@ParameterizedClass(name = "{0}")
@EnumSource(
        value = TestServer.class,
        names = {"POSTGRES_LOCAL", "POSTGRES_EMBEDDED", "MARIADB_LOCAL", "MARIADB_EMBEDDED"})
class BatonTracingTest {
    @Parameter
    TestServer server;

    @Nested
    class Spans extends DatabaseSuite {
        private TestDatabase db;
        private InMemorySpanExporter exporter;
        private SdkTracerProvider provider;
        private Tracer tracer;
        private Baton baton;
        private String table;

        @Override
        protected void setUp() {
            db = database();
        }

        @BeforeEach
        void fresh() {
            exporter = InMemorySpanExporter.create();
            provider = SdkTracerProvider.builder()
                    .addSpanProcessor(SimpleSpanProcessor.create(exporter))
                    .build();
            OpenTelemetrySdk otel =
                    OpenTelemetrySdk.builder().setTracerProvider(provider).build();
            tracer = otel.getTracer("test");
            baton = Baton.builder(db.dataSource())
                    .interceptor(new BatonTracing(otel))
                    .build();
            table = TestDatabases.uniqueName("tbox");
            assertTrue(baton.ownTables().createOutboxTable(table));
        }

        @AfterEach
        void drop() {
            db.dropTableIfExists(table);
            provider.close();
        }

        @Test
        @SuppressWarnings("try") // the scope is closed, never read
        void theDispatchSpanIsAChildOfTheSpanThatEnqueued() throws Exception {
            Outbox outbox = baton.outbox(table);
            JobsTable jobs = JobsTable.create(db, "traced", false);
            try {
                jobs.insert(1, 1, Payment.PENDING);
                StateTable<Payment> payments = baton.table(jobs.name()).state("payment_status", Payment.MACHINE);
                Span request = tracer.spanBuilder("request").startSpan();
                try (Scope ignored = request.makeCurrent()) {
                    outbox.enqueue(Message.of("order.paid", "1"));
                    outbox.transitionAndEnqueue(
                            payments.transition(1L, Payment.PENDING, Payment.PAID), Message.of("order.paid", "2"));
                    try (Connection c = db.connect()) {
                        outbox.enqueue(c, Message.of("order.paid", "3"));
                    }
                } finally {
                    request.end();
                }
                outbox.enqueue(Message.of("order.paid", "4")); // outside any span
                String kept = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01";
                outbox.enqueue(Message.of("order.paid", "5").header("traceparent", kept));

                Map<String, Long> ids = new ConcurrentHashMap<>();
                Map<String, SpanContext> inSink = new ConcurrentHashMap<>();
                Map<String, Map<String, String>> headers = new ConcurrentHashMap<>();
                Worker dispatcher = outbox.dispatcher(m -> {
                            ids.put(m.payloadText(), m.id());
                            inSink.put(m.payloadText(), Span.current().getSpanContext());
                            headers.put(m.payloadText(), m.headers());
                        })
                        .pollInterval(Duration.ofMillis(20), Duration.ofMillis(100))
                        .start();
                try {
                    await(() -> spans("dispatch order.paid").size() == 5);
                } finally {
                    dispatcher.close();
                }
                SpanContext req = request.getSpanContext();
                assertEquals(
                        "00-" + req.getTraceId() + "-" + req.getSpanId() + "-"
                                + req.getTraceFlags().asHex(),
                        headers.get("1").get("traceparent"));
                for (String payload : List.of("1", "2", "3")) {
                    SpanData dispatch = dispatchSpan(ids.get(payload));
                    assertEquals(req.getTraceId(), dispatch.getTraceId(), "message " + payload);
                    assertEquals(req.getSpanId(), dispatch.getParentSpanId(), "message " + payload);
                    assertEquals(SpanKind.CONSUMER, dispatch.getKind());
                    assertEquals(
                            "order.paid",
                            dispatch.getAttributes().get(AttributeKey.stringKey("messaging.destination.name")));
                    assertEquals(
                            "complete", dispatch.getAttributes().get(AttributeKey.stringKey(BatonTracing.OUTCOME)));
                    // the dispatch span is current while the sink runs
                    assertEquals(dispatch.getSpanId(), inSink.get(payload).getSpanId());
                }
                SpanData root = dispatchSpan(ids.get("4"));
                assertFalse(root.getParentSpanContext().isValid(), "no enqueuing span: a root span");
                assertFalse(headers.get("4").containsKey("traceparent"));
                assertEquals(kept, headers.get("5").get("traceparent"), "a header the message has is kept");
                assertEquals("b7ad6b7169203331", dispatchSpan(ids.get("5")).getParentSpanId());

                List<SpanData> claims = spans("claim " + outbox.queue().name());
                assertFalse(claims.isEmpty());
                long claimed = claims.stream()
                        .mapToLong(s -> s.getAttributes().get(AttributeKey.longKey(BatonTracing.ROWS)))
                        .sum();
                assertEquals(5, claimed);
            } finally {
                jobs.drop();
            }
        }

        @Test
        void handlerSpansRecordFailures() throws Exception {
            JobsTable jobs = JobsTable.create(db, "handled", true);
            try {
                StateTable<Payment> payments = baton.table(jobs.name()).state("payment_status", Payment.MACHINE);
                ClaimQueue<Sync> q = baton.<Sync>queue("h-" + jobs.name())
                        .table(jobs.name())
                        .claim("sync_status", Sync.MACHINE, Sync.PENDING, Sync.PROCESSING)
                        .eligibleWhen(payments.is(Payment.PAID))
                        .deadState(Sync.FAILED)
                        .retry(RetryPolicy.fixed(Duration.ZERO).maxAttempts(1))
                        .build();
                jobs.insert(1, 2, Payment.PAID);
                Worker worker = baton.worker(q)
                        .pollInterval(Duration.ofMillis(20), Duration.ofMillis(100))
                        .handle(row -> {
                            if (((Number) row.id()).longValue() == 2) {
                                throw new IllegalStateException("boom");
                            }
                            return Outcome.complete(Sync.COMPLETED);
                        })
                        .start();
                try {
                    await(() -> spans("handle " + q.name()).size() == 2);
                } finally {
                    worker.close();
                }
                for (SpanData s : spans("handle " + q.name())) {
                    String id = s.getAttributes().get(AttributeKey.stringKey(BatonTracing.ID));
                    assertEquals(1L, s.getAttributes().get(AttributeKey.longKey(BatonTracing.ATTEMPT)));
                    if (id.equals("1")) {
                        assertEquals(StatusCode.UNSET, s.getStatus().getStatusCode());
                        assertEquals("complete", s.getAttributes().get(AttributeKey.stringKey(BatonTracing.OUTCOME)));
                    } else {
                        assertEquals("2", id);
                        assertEquals(StatusCode.ERROR, s.getStatus().getStatusCode());
                        assertEquals("exception", s.getEvents().get(0).getName());
                    }
                }
            } finally {
                jobs.drop();
            }
        }

        private SpanData dispatchSpan(long messageId) {
            return spans("dispatch order.paid").stream()
                    .filter(s -> Long.toString(messageId)
                            .equals(s.getAttributes().get(AttributeKey.stringKey("messaging.message.id"))))
                    .findFirst()
                    .orElseThrow(() -> new AssertionError("no dispatch span for message " + messageId));
        }

        private List<SpanData> spans(String name) {
            return exporter.getFinishedSpanItems().stream()
                    .filter(s -> s.getName().equals(name))
                    .toList();
        }

        private void await(BooleanSupplier done) throws InterruptedException {
            long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (!done.getAsBoolean()) {
                if (System.nanoTime() > end) {
                    throw new AssertionError("not done within 60 s; spans: " + exporter.getFinishedSpanItems());
                }
                Thread.sleep(20);
            }
        }
    }
}
