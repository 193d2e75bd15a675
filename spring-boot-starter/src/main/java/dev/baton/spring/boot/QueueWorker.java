package dev.baton.spring.boot;

import dev.baton.Baton;
import dev.baton.ClaimQueue;
import dev.baton.Outbox;
import dev.baton.Outcome;
import dev.baton.Worker;
import java.time.Duration;
import java.util.Objects;
import java.util.function.Consumer;

/**
 * A worker for the application context to run: declare one as a bean and the starter starts a {@link Worker} for it
 * once the context is refreshed (after Flyway or Liquibase), and closes it when the context stops, before the
 * connection pool closes. Immutable.
 *
 * <pre>{@code
 * @Bean
 * QueueWorker<SyncStatus> orderSyncWorker(ClaimQueue<SyncStatus> orderSync, ThirdParty thirdParty) {
 *     return QueueWorker.of(orderSync, row -> push(thirdParty, row))
 *             .configure(worker -> worker.sweepInterval(Duration.ofSeconds(5)));
 * }
 * }</pre>
 *
 * <p>The worker is configured in this order: Baton's defaults, then {@code baton.queues.<queue name>.*}
 * ({@link BatonProperties.Queue}), then {@link #configure}.
 *
 * @param <S> the queue's enum of states
 */
public final class QueueWorker<S extends Enum<S>> {
    // Worker.Builder's defaults, for a property that sets only one of the two poll intervals
    private static final Duration DEFAULT_POLL = Duration.ofMillis(500);
    private static final Duration DEFAULT_MAX_IDLE = Duration.ofSeconds(5);

    private final ClaimQueue<S> queue;
    private final Worker.Handler<S> handler;
    private final Consumer<Worker.Builder<S>> customizer;

    private QueueWorker(ClaimQueue<S> queue, Worker.Handler<S> handler, Consumer<Worker.Builder<S>> customizer) {
        this.queue = Objects.requireNonNull(queue, "queue");
        this.handler = Objects.requireNonNull(handler, "handler");
        this.customizer = Objects.requireNonNull(customizer, "customizer");
    }

    /**
     * A worker that processes {@code queue} with {@code handler}.
     *
     * @param queue the queue
     * @param handler the application's code for one claimed row
     * @param <S> the queue's enum of states
     * @return the definition
     */
    public static <S extends Enum<S>> QueueWorker<S> of(ClaimQueue<S> queue, Worker.Handler<S> handler) {
        return new QueueWorker<>(queue, handler, builder -> {});
    }

    /**
     * An outbox dispatcher: a worker over {@code outbox}'s queue that hands each message to {@code sink}, as
     * {@link Outbox#dispatcher} does (delivered when the sink returns, retried when it throws, dead after the last
     * attempt). Its properties are those of the outbox queue's name.
     *
     * @param outbox the outbox
     * @param sink the broker or other destination
     * @return the definition
     */
    public static QueueWorker<Outbox.Status> dispatcher(Outbox outbox, Outbox.Sink sink) {
        Objects.requireNonNull(sink, "sink");
        return of(outbox.queue(), row -> {
            sink.deliver(outbox.toMessage(row));
            return Outcome.complete(Outbox.Status.DELIVERED);
        });
    }

    /**
     * The same worker with more configuration in code (a reconcile hook, an executor, a name), applied after the
     * properties.
     *
     * @param customizer changes the builder; it must not call {@link Worker.Builder#start()}
     * @return a new definition
     */
    public QueueWorker<S> configure(Consumer<Worker.Builder<S>> customizer) {
        Objects.requireNonNull(customizer, "customizer");
        return new QueueWorker<>(queue, handler, this.customizer.andThen(customizer));
    }

    /** The queue this worker processes. */
    public ClaimQueue<S> queue() {
        return queue;
    }

    /** Configures and starts the worker: properties, then the customizer, then the handler. */
    Worker start(Baton baton, BatonProperties.Queue settings) {
        Worker.Builder<S> builder = baton.worker(queue);
        if (settings.batchSize() != null) {
            builder.batchSize(settings.batchSize());
        }
        if (settings.concurrency() != null) {
            builder.concurrency(settings.concurrency());
        }
        if (settings.pollInterval() != null || settings.maxIdleInterval() != null) {
            Duration poll = settings.pollInterval() != null ? settings.pollInterval() : DEFAULT_POLL;
            Duration idle = settings.maxIdleInterval() != null
                    ? settings.maxIdleInterval() // both set: Worker.Builder refuses idle < poll, naming both
                    : (DEFAULT_MAX_IDLE.compareTo(poll) < 0 ? poll : DEFAULT_MAX_IDLE);
            builder.pollInterval(poll, idle);
        }
        if (settings.heartbeat() != null) {
            builder.heartbeat(settings.heartbeat());
        }
        if (settings.shutdownTimeout() != null) {
            builder.shutdownTimeout(settings.shutdownTimeout());
        }
        if (settings.sweepInterval() != null) {
            builder.sweepInterval(settings.sweepInterval());
        }
        customizer.accept(builder);
        return builder.handle(handler).start();
    }
}
