package dev.baton;

import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Around-advice for tracing and context propagation: wraps each claim and each handler call, and adds headers to each
 * outbox message before it is stored. Every method has a default that only proceeds, so an interceptor implements
 * what it needs. Registered on {@link Baton.Builder#interceptor} (every queue, worker and outbox of that instance) or
 * on {@link Worker.Builder#intercept} (one worker's handler calls only); interceptors run in the order registered, the first outermost.
 * Unlike a {@link BatonListener}, an interceptor runs inside the operation: an exception it throws fails the
 * operation (in a handler call: as if the handler threw). Implementations must be thread-safe.
 *
 * <pre>{@code
 * Baton baton = Baton.builder(dataSource)
 *     .interceptor(new BatonInterceptor() {
 *         public <S extends Enum<S>> Outcome<S> aroundHandle(HandlerCall<S> call) throws Exception {
 *             long start = System.nanoTime();
 *             try {
 *                 return call.proceed();
 *             } finally {
 *                 log.debug("{} took {} µs", call.row(), (System.nanoTime() - start) / 1000);
 *             }
 *         }
 *     })
 *     .build();
 * }</pre>
 */
public interface BatonInterceptor {

    /**
     * One handler call of a worker: the row, and for an outbox dispatcher the message; {@link #proceed()} runs the
     * next interceptor, the last one the handler.
     *
     * @param <S> the enum of states
     */
    interface HandlerCall<S extends Enum<S>> {
        /** The queue's name. */
        String queue();

        /** The claimed row. */
        ClaimedRow<S> row();

        /** The message being delivered, when this worker is an {@link Outbox#dispatcher}; else empty. */
        Optional<OutboxMessage> message();

        /**
         * Runs the rest of the chain and the handler; call it once.
         *
         * @return the handler's outcome (null if the handler returned null)
         * @throws Exception what the handler threw
         */
        Outcome<S> proceed() throws Exception;
    }

    /**
     * One claim: {@link #proceed()} runs the next interceptor, the last one the claim statement.
     *
     * @param <S> the enum of states
     */
    interface ClaimCall<S extends Enum<S>> {
        /** The queue's name. */
        String queue();

        /** The most rows asked for. */
        int batchSize();

        /**
         * Runs the rest of the chain and the claim; call it once.
         *
         * @return the rows claimed, possibly none
         */
        List<ClaimedRow<S>> proceed();
    }

    /**
     * Headers to add to a message about to be stored in {@code outbox} (its table), such as the W3C
     * {@code traceparent} of the current trace. Called on the enqueuing thread, before any SQL; a header the message
     * already has is kept. Default: none.
     *
     * @param outbox the outbox table
     * @param message the message as the caller built it
     * @return headers to add, possibly empty
     */
    default Map<String, String> enqueueHeaders(String outbox, Message message) {
        return Map.of();
    }

    /**
     * Around one claim ({@link ClaimQueue#claim}), on the claiming thread (a worker's poller).
     *
     * @param call the claim
     * @return what {@code call.proceed()} returned
     */
    default <S extends Enum<S>> List<ClaimedRow<S>> aroundClaim(ClaimCall<S> call) {
        return call.proceed();
    }

    /**
     * Around one handler call of a worker, on the thread that runs the handler, with Baton's MDC keys set.
     *
     * @param call the handler call
     * @return what {@code call.proceed()} returned
     * @throws Exception what {@code call.proceed()} threw
     */
    default <S extends Enum<S>> Outcome<S> aroundHandle(HandlerCall<S> call) throws Exception {
        return call.proceed();
    }
}
