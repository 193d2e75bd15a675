package dev.baton.spring.boot;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;
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
 *     max-failed-polls: 3          # a worker whose last 3 polls failed: DOWN
 *   metrics:
 *     gauge-refresh: 15s           # with Micrometer: one health query per queue per 15 s at most
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
 * @param metrics the Micrometer meters, when Micrometer and baton-micrometer are on the class path
 * @param queues settings per queue, by queue name
 */
@ConfigurationProperties("baton")
public record BatonProperties(
        @DefaultValue OwnTables ownTables,
        @DefaultValue Workers workers,
        @DefaultValue Health health,
        @DefaultValue Metrics metrics,
        @DefaultValue Map<String, Queue> queues) {
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
     * @param rateLimits rate-limit tables (the buckets of queues with a rate limit, ClaimQueueBuilder.rateLimit)
     */
    public record OwnTables(
            @DefaultValue("false") boolean create,
            List<String> outbox,
            List<String> inbox,
            List<String> idempotencyKeys,
            List<String> rateLimits) {
        /** Binds the settings; missing lists are empty. */
        public OwnTables {
            outbox = outbox == null ? List.of() : List.copyOf(outbox);
            inbox = inbox == null ? List.of() : List.copyOf(inbox);
            idempotencyKeys = idempotencyKeys == null ? List.of() : List.copyOf(idempotencyKeys);
            rateLimits = rateLimits == null ? List.of() : List.copyOf(rateLimits);
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
     *     indicator reports OUT_OF_SERVICE; unset (the default) checks no age. A queue's own max-backlog-age overrides
     *     it.
     * @param maxUnknown rows with an unknown send (non-idempotent sinks) a queue may hold before the indicator reports
     *     OUT_OF_SERVICE; unset (the default) checks no count
     * @param maxFailedPolls a running worker whose last this many polls failed (Worker.consecutiveFailedPolls), or
     *     whose last this many commits of outcomes failed (Worker.consecutiveFailedFlushes), makes the indicator report
     *     DOWN; default 3, at least 1
     */
    public record Health(
            @Nullable Duration maxBacklogAge, @Nullable Long maxUnknown, @DefaultValue("3") int maxFailedPolls) {
        /**
         * Validates the thresholds.
         *
         * @throws IllegalArgumentException if {@code maxFailedPolls} is less than 1
         */
        public Health {
            if (maxFailedPolls < 1) {
                throw new IllegalArgumentException(
                        "baton.health.max-failed-polls must be at least 1, was " + maxFailedPolls);
            }
        }
    }

    /**
     * The Micrometer meters.
     *
     * @param gaugeRefresh each queue's gauges query the database at most once per this interval, however many gauges
     *     and scrapes there are; default 15 s (BatonMetrics.DEFAULT_GAUGE_REFRESH), zero queries at every read
     */
    public record Metrics(@DefaultValue("15s") Duration gaugeRefresh) {
        /**
         * Validates the interval.
         *
         * @throws IllegalArgumentException if {@code gaugeRefresh} is negative
         */
        public Metrics {
            if (gaugeRefresh.isNegative()) {
                throw new IllegalArgumentException(
                        "baton.metrics.gauge-refresh must not be negative, was " + gaugeRefresh);
            }
        }
    }

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
            @Nullable Integer batchSize,
            @Nullable Integer concurrency,
            @Nullable Duration pollInterval,
            @Nullable Duration maxIdleInterval,
            @Nullable Duration heartbeat,
            @Nullable Duration shutdownTimeout,
            @Nullable Duration sweepInterval,
            @Nullable Duration lease,
            @Nullable Duration maxBacklogAge) {
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
