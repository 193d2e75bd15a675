package dev.baton.internal.worker;

import dev.baton.BatonInterceptor;
import dev.baton.ClaimedRow;
import dev.baton.OutboxMessage;
import dev.baton.Outcome;
import dev.baton.internal.Engine;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.function.Function;
import org.slf4j.MDC;

/**
 * A worker's handler as the loop calls it: Baton's MDC keys set on the handler's thread, the interceptors around the
 * handler, and the handler's time reported to the listeners. Thread-safe.
 *
 * @param <S> the enum of states
 */
public final class HandlerChain<S extends Enum<S>> implements RowHandler<S> {
    /** The MDC key of the queue's name. */
    public static final String MDC_QUEUE = "baton.queue";
    /** The MDC key of the row's id. */
    public static final String MDC_ID = "baton.id";
    /** The MDC key of the claim's attempt. */
    public static final String MDC_ATTEMPT = "baton.attempt";
    /** The MDC key of the claim's fencing token. */
    public static final String MDC_TOKEN = "baton.token";

    private static final String[] KEYS = {MDC_QUEUE, MDC_ID, MDC_ATTEMPT, MDC_TOKEN};

    private final String queue;
    private final RowHandler<S> handler;
    private final List<BatonInterceptor> interceptors;
    private final Function<ClaimedRow<S>, OutboxMessage> messages;
    private final Engine engine;

    /**
     * The chain of {@code handler} in {@code queue}; {@code messages} reads a row as an outbox message (dispatchers
     * only, else null).
     */
    public HandlerChain(
            String queue,
            RowHandler<S> handler,
            List<BatonInterceptor> interceptors,
            Function<ClaimedRow<S>, OutboxMessage> messages,
            Engine engine) {
        this.queue = queue;
        this.handler = handler;
        this.interceptors = List.copyOf(interceptors);
        this.messages = messages;
        this.engine = engine;
    }

    @Override
    public Outcome<S> handle(ClaimedRow<S> row) throws Exception {
        String[] previous = new String[KEYS.length];
        for (int i = 0; i < KEYS.length; i++) {
            previous[i] = MDC.get(KEYS[i]);
        }
        MDC.put(MDC_QUEUE, queue);
        MDC.put(MDC_ID, String.valueOf(row.id()));
        MDC.put(MDC_ATTEMPT, attemptText(row.attempt()));
        MDC.put(MDC_TOKEN, tokenText(row.token()));
        try {
            return interceptors.isEmpty() ? timed(row) : new Call(row, 0, null).proceed();
        } finally {
            // a pooled thread must not carry one row's keys into the next row, nor lose the host's own values
            for (int i = 0; i < KEYS.length; i++) {
                if (previous[i] == null) {
                    MDC.remove(KEYS[i]);
                } else {
                    MDC.put(KEYS[i], previous[i]);
                }
            }
        }
    }

    /** The attempts most rows are at, as text, so that the MDC value of a row costs no new string. */
    private static final String[] ATTEMPTS = {"0", "1", "2", "3", "4", "5", "6", "7", "8", "9"};

    private static String attemptText(int attempt) {
        return attempt >= 0 && attempt < ATTEMPTS.length ? ATTEMPTS[attempt] : Integer.toString(attempt);
    }

    /** The last token written as text: the rows of one claim share it, so a batch converts it once. */
    private record TokenText(long token, String text) {}

    private volatile TokenText lastToken = new TokenText(0, "0");

    private String tokenText(long token) {
        TokenText last = lastToken;
        if (last.token() == token) {
            return last.text();
        }
        TokenText t = new TokenText(token, Long.toString(token));
        lastToken = t; // pollers of one worker race here harmlessly: each entry is right for its token
        return t.text();
    }

    private Outcome<S> timed(ClaimedRow<S> row) throws Exception {
        if (!engine.events().hasListeners()) {
            return handler.handle(row);
        }
        long start = System.nanoTime();
        Outcome<S> outcome = null;
        Throwable failure = null;
        try {
            outcome = handler.handle(row);
            return outcome;
        } catch (Exception | Error e) {
            failure = e;
            throw e;
        } finally {
            Duration took = Duration.ofNanos(System.nanoTime() - start);
            Outcome<S> o = outcome;
            Throwable f = failure;
            engine.events().fire(l -> l.onHandled(queue, row.id(), row.attempt(), o, f, took));
        }
    }

    /** One step of the chain: interceptor {@code index}, or the handler after the last. */
    private final class Call implements BatonInterceptor.HandlerCall<S> {
        private final ClaimedRow<S> row;
        private final int index;
        private Optional<OutboxMessage> message;
        private boolean proceeded;

        Call(ClaimedRow<S> row, int index, Optional<OutboxMessage> message) {
            this.row = row;
            this.index = index;
            this.message = message;
        }

        @Override
        public String queue() {
            return queue;
        }

        @Override
        public ClaimedRow<S> row() {
            return row;
        }

        @Override
        public Optional<OutboxMessage> message() {
            if (message == null) {
                message = messages == null ? Optional.empty() : Optional.of(messages.apply(row));
            }
            return message;
        }

        @Override
        public Outcome<S> proceed() throws Exception {
            if (proceeded) {
                throw new IllegalStateException("an interceptor called proceed() twice for " + row);
            }
            proceeded = true;
            if (index == interceptors.size()) {
                return timed(row);
            }
            return interceptors.get(index).aroundHandle(new Call(row, index + 1, message));
        }
    }
}
