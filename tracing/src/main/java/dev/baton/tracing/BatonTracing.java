package dev.baton.tracing;

import dev.baton.BatonInterceptor;
import dev.baton.ClaimedRow;
import dev.baton.Message;
import dev.baton.OutboxMessage;
import dev.baton.Outcome;
import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.api.trace.propagation.W3CTraceContextPropagator;
import io.opentelemetry.context.Context;
import io.opentelemetry.context.Scope;
import io.opentelemetry.context.propagation.TextMapGetter;
import io.opentelemetry.context.propagation.TextMapPropagator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * OpenTelemetry tracing for Baton, as a {@link BatonInterceptor}: an outbox message carries the W3C trace context
 * ({@code traceparent}, {@code tracestate}) of the code that enqueued it in its headers, and its dispatch span has
 * that context as parent, so a trace runs from the request that changed the state to the delivery that announced
 * it; every claim and every handler call gets a span. Immutable and thread-safe.
 *
 * <pre>{@code
 * Baton baton = Baton.builder(dataSource)
 *     .interceptor(new BatonTracing(openTelemetry))   // e.g. GlobalOpenTelemetry.get()
 *     .build();
 * }</pre>
 *
 * <p>The spans:
 *
 * <ul>
 *   <li>{@code claim <queue>} (internal): one claim statement; attributes {@value #QUEUE}, {@value #BATCH_SIZE}
 *       and {@value #ROWS} (rows claimed). A worker claims at every poll, so an idle queue makes a span per poll:
 *       {@link #withoutClaimSpans()} turns them off;
 *   <li>{@code dispatch <topic>} (consumer): one delivery by an outbox dispatcher, child of the enqueuing context
 *       when the message carries one (else of the current context); attributes {@code messaging.system} =
 *       {@code baton}, {@code messaging.operation.type} = {@code process}, {@code messaging.destination.name},
 *       {@code messaging.message.id}, {@value #QUEUE}, {@value #ATTEMPT}, {@value #OUTCOME};
 *   <li>{@code handle <queue>} (internal): any other worker's handler call; attributes {@value #QUEUE},
 *       {@value #ID}, {@value #ATTEMPT}, {@value #OUTCOME}.
 * </ul>
 *
 * <p>A handler that throws (or returns null) ends its span with status ERROR and the exception recorded. The span is
 * current while the handler runs, so the handler's own spans (HTTP clients, JDBC) nest under it.
 */
public final class BatonTracing implements BatonInterceptor {
    /** The instrumentation scope name. */
    public static final String SCOPE = "dev.baton";
    /** The queue's name. */
    public static final String QUEUE = "baton.queue";
    /** The most rows a claim asked for. */
    public static final String BATCH_SIZE = "baton.claim.batch_size";
    /** The rows a claim returned. */
    public static final String ROWS = "baton.claim.rows";
    /** The row's id. */
    public static final String ID = "baton.id";
    /** The attempt number, 1 for the first claim. */
    public static final String ATTEMPT = "baton.attempt";
    /** What the handler returned ({@code complete}, {@code retry}, ...). */
    public static final String OUTCOME = "baton.outcome";

    private static final AttributeKey<String> QUEUE_KEY = AttributeKey.stringKey(QUEUE);
    private static final AttributeKey<Long> BATCH_KEY = AttributeKey.longKey(BATCH_SIZE);
    private static final AttributeKey<Long> ROWS_KEY = AttributeKey.longKey(ROWS);
    private static final AttributeKey<String> ID_KEY = AttributeKey.stringKey(ID);
    private static final AttributeKey<Long> ATTEMPT_KEY = AttributeKey.longKey(ATTEMPT);
    private static final AttributeKey<String> OUTCOME_KEY = AttributeKey.stringKey(OUTCOME);
    private static final AttributeKey<String> SYSTEM = AttributeKey.stringKey("messaging.system");
    private static final AttributeKey<String> OPERATION = AttributeKey.stringKey("messaging.operation.type");
    private static final AttributeKey<String> DESTINATION = AttributeKey.stringKey("messaging.destination.name");
    private static final AttributeKey<String> MESSAGE_ID = AttributeKey.stringKey("messaging.message.id");

    private static final TextMapGetter<Map<String, String>> HEADERS =
            (carrier, key) -> carrier == null ? null : carrier.get(key);

    private final Tracer tracer;
    private final TextMapPropagator propagator = W3CTraceContextPropagator.getInstance();
    private final boolean claimSpans;

    /** Tracing with the tracer of {@code openTelemetry}; the trace context is always written in the W3C format. */
    public BatonTracing(OpenTelemetry openTelemetry) {
        this(Objects.requireNonNull(openTelemetry, "openTelemetry").getTracer(SCOPE), true);
    }

    private BatonTracing(Tracer tracer, boolean claimSpans) {
        this.tracer = tracer;
        this.claimSpans = claimSpans;
    }

    /** The same tracing without a span per claim (dispatch and handler spans stay). */
    public BatonTracing withoutClaimSpans() {
        return new BatonTracing(tracer, false);
    }

    /** The current trace context in W3C headers, when there is a valid span; else none. */
    @Override
    public Map<String, String> enqueueHeaders(String outbox, Message message) {
        Context context = Context.current();
        if (!Span.fromContext(context).getSpanContext().isValid()) {
            return Map.of();
        }
        Map<String, String> headers = new LinkedHashMap<>();
        propagator.inject(context, headers, (carrier, key, value) -> carrier.put(key, value));
        return headers;
    }

    @Override
    @SuppressWarnings("try") // the scope is closed, never read
    public <S extends Enum<S>> List<ClaimedRow<S>> aroundClaim(ClaimCall<S> call) {
        if (!claimSpans) {
            return call.proceed();
        }
        Span span = tracer.spanBuilder("claim " + call.queue())
                .setAttribute(QUEUE_KEY, call.queue())
                .setAttribute(BATCH_KEY, (long) call.batchSize())
                .startSpan();
        try (Scope ignored = span.makeCurrent()) {
            List<ClaimedRow<S>> rows = call.proceed();
            span.setAttribute(ROWS_KEY, (long) rows.size());
            return rows;
        } catch (RuntimeException | Error e) {
            failed(span, e);
            throw e;
        } finally {
            span.end();
        }
    }

    @Override
    @SuppressWarnings("try") // the scope is closed, never read
    public <S extends Enum<S>> Outcome<S> aroundHandle(HandlerCall<S> call) throws Exception {
        ClaimedRow<S> row = call.row();
        Optional<OutboxMessage> message = call.message();
        Span span;
        if (message.isPresent()) {
            OutboxMessage m = message.get();
            Context parent = propagator.extract(Context.current(), m.headers(), HEADERS);
            span = tracer.spanBuilder("dispatch " + m.topic())
                    .setParent(parent)
                    .setSpanKind(SpanKind.CONSUMER)
                    .setAttribute(SYSTEM, "baton")
                    .setAttribute(OPERATION, "process")
                    .setAttribute(DESTINATION, m.topic())
                    .setAttribute(MESSAGE_ID, Long.toString(m.id()))
                    .setAttribute(QUEUE_KEY, call.queue())
                    .setAttribute(ATTEMPT_KEY, (long) row.attempt())
                    .startSpan();
        } else {
            span = tracer.spanBuilder("handle " + call.queue())
                    .setAttribute(QUEUE_KEY, call.queue())
                    .setAttribute(ID_KEY, String.valueOf(row.id()))
                    .setAttribute(ATTEMPT_KEY, (long) row.attempt())
                    .startSpan();
        }
        try (Scope ignored = span.makeCurrent()) {
            Outcome<S> outcome = call.proceed();
            if (outcome == null) {
                span.setStatus(StatusCode.ERROR, "the handler returned null");
            } else {
                span.setAttribute(OUTCOME_KEY, outcome.kind().name().toLowerCase(Locale.ROOT));
            }
            return outcome;
        } catch (Exception | Error e) {
            failed(span, e);
            throw e;
        } finally {
            span.end();
        }
    }

    private static void failed(Span span, Throwable e) {
        span.recordException(e);
        span.setStatus(StatusCode.ERROR, e.getClass().getSimpleName());
    }

    @Override
    public String toString() {
        return "BatonTracing[" + (claimSpans ? "claims, " : "") + "handlers, outbox context]";
    }
}
