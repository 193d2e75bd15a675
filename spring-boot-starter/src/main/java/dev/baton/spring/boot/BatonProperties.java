package dev.baton.spring.boot;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * Settings under {@code baton.*}, bound once at start-up; immutable.
 *
 * <pre>
 * baton:
 *   own-tables:
 *     create: true                 # default false: Flyway/Liquibase own the schema
 *     outbox: [baton_outbox]
 *   health:
 *     max-backlog-age: 5m          # oldest eligible row older than this: OUT_OF_SERVICE
 *   queues:
 *     order-sync:
 *       concurrency: 8
 *       batch-size: 20
 *       lease: 30s
 *       shutdown-timeout: 20s
 * </pre>
 *
 * @param ownTables Baton's own tables to create at start-up
 * @param workers settings for every worker
 * @param health what the health indicator reports as not healthy
 * @param queues settings per queue, by queue name
 */
@ConfigurationProperties("baton")
public record BatonProperties(
        @DefaultValue OwnTables ownTables,
        @DefaultValue Workers workers,
        @DefaultValue Health health,
        Map<String, Queue> queues) {
    /** Binds the settings; a missing map is empty. */
    public BatonProperties {
        queues = queues == null ? Map.of() : Map.copyOf(queues);
    }

    /**
     * The settings of one queue, or the defaults if it has none.
     *
     * @param name the queue's name
     * @return its settings, never null
     */
    public Queue queue(String name) {
        Queue q = queues.get(name);
        return q != null ? q : new Queue(true, null, null, null, null, null, null, null, null, null);
    }

    /**
     * Baton's own tables, created at start-up with {@code CREATE TABLE IF NOT EXISTS} semantics when
     * {@code create} is true (default false: the application's migrations create them, see {@code OwnTables}).
     *
     * @param create whether to create the tables listed here
     * @param outbox outbox tables
     * @param inbox inbox tables
     * @param idempotencyKeys idempotency-key tables
     */
    public record OwnTables(
            @DefaultValue("false") boolean create,
            List<String> outbox,
            List<String> inbox,
            List<String> idempotencyKeys) {
        /** Binds the settings; missing lists are empty. */
        public OwnTables {
            outbox = outbox == null ? List.of() : List.copyOf(outbox);
            inbox = inbox == null ? List.of() : List.copyOf(inbox);
            idempotencyKeys = idempotencyKeys == null ? List.of() : List.copyOf(idempotencyKeys);
        }
    }

    /**
     * Every worker.
     *
     * @param enabled false starts no worker on this host (a web-only node); default true
     */
    public record Workers(@DefaultValue("true") boolean enabled) {}

    /**
     * The health indicator's thresholds.
     *
     * @param maxBacklogAge the oldest eligible row of a queue may be this old (by the queue's age column) before the
     *     indicator reports {@code OUT_OF_SERVICE}; null (the default) checks no age. A queue's own
     *     {@code max-backlog-age} overrides it.
     * @param maxUnknown rows with an unknown send (non-idempotent sinks) a queue may hold before the indicator reports
     *     {@code OUT_OF_SERVICE}; null (the default) checks no count
     */
    public record Health(Duration maxBacklogAge, Long maxUnknown) {}

    /**
     * One queue's settings; null leaves the value set in code (or Baton's default).
     *
     * @param enabled false starts no worker for this queue on this host; default true
     * @param batchSize rows per claim ({@code Worker.Builder#batchSize})
     * @param concurrency handlers at once ({@code Worker.Builder#concurrency})
     * @param pollInterval the poll interval when rows were found ({@code Worker.Builder#pollInterval})
     * @param maxIdleInterval the longest wait between polls when idle
     * @param heartbeat lease extension interval ({@code Worker.Builder#heartbeat})
     * @param shutdownTimeout how long stopping waits for in-flight handlers ({@code Worker.Builder#shutdownTimeout})
     * @param sweepInterval how often expired leases are reclaimed ({@code Worker.Builder#sweepInterval})
     * @param lease the queue's lease, read by the application's queue definition through {@link #leaseOr}
     * @param maxBacklogAge this queue's backlog-age threshold for the health indicator
     */
    public record Queue(
            @DefaultValue("true") boolean enabled,
            Integer batchSize,
            Integer concurrency,
            Duration pollInterval,
            Duration maxIdleInterval,
            Duration heartbeat,
            Duration shutdownTimeout,
            Duration sweepInterval,
            Duration lease,
            Duration maxBacklogAge) {
        /**
         * The configured lease, or {@code fallback}: for {@code ClaimQueueBuilder#lease} in the queue's definition.
         *
         * @param fallback the lease when none is configured
         * @return the lease
         */
        public Duration leaseOr(Duration fallback) {
            return lease != null ? lease : fallback;
        }
    }
}
