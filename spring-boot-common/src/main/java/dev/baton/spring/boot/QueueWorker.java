package dev.baton.spring.boot;

import dev.baton.Baton;
import dev.baton.ClaimQueue;
import dev.baton.Outbox;
import dev.baton.Worker;
import java.time.Duration;
import java.util.Objects;
import java.util.function.Consumer;
import java.util.function.Function;

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
    /** A builder with the handler set: {@code Baton.worker(queue).handle(...)}, or an outbox's dispatcher. */
    private final Function<Baton, Worker.Builder<S>> builder;

    private final Consumer<Worker.Builder<S>> customizer;

    private QueueWorker(
            ClaimQueue<S> queue, Function<Baton, Worker.Builder<S>> builder, Consumer<Worker.Builder<S>> customizer) {
        this.queue = Objects.requireNonNull(queue, "queue");
        this.builder = builder;
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
        Objects.requireNonNull(queue, "queue");
        Objects.requireNonNull(handler, "handler");
        return new QueueWorker<>(queue, baton -> baton.worker(queue).handle(handler), builder -> {});
    }

    /**
     * An outbox dispatcher: the worker of {@link Outbox#dispatcher}, which hands each message to {@code sink}
     * (delivered when the sink returns, retried when it throws, dead after the last attempt), tells listeners of each
     * delivery (so {@code baton-micrometer} counts it and measures the lag) and gives interceptors the message (so
     * {@code baton-tracing} continues the enqueuing trace). Its properties are those of the outbox queue's name,
     * {@code outbox:<table>}.
     *
     * @param outbox the outbox
     * @param sink the broker or other destination
     * @return the definition
     */
    public static QueueWorker<Outbox.Status> dispatcher(Outbox outbox, Outbox.Sink sink) {
        Objects.requireNonNull(outbox, "outbox");
        Objects.requireNonNull(sink, "sink");
        return new QueueWorker<>(outbox.queue(), baton -> outbox.dispatcher(sink), builder -> {});
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
        return new QueueWorker<>(queue, builder, this.customizer.andThen(customizer));
    }

    /** The queue this worker processes. */
    public ClaimQueue<S> queue() {
        return queue;
    }

    /** Configures and starts the worker: the handler, then the properties, then the customizer. */
    Worker start(Baton baton, BatonProperties.Queue settings) {
        Worker.Builder<S> builder = this.builder.apply(baton);
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
        return builder.start();
    }
}
