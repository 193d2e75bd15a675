package dev.baton.micrometer;

import dev.baton.ClaimQueue;
import dev.baton.QueueHealth;
import dev.baton.SendDurability;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.TimeGauge;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.ToDoubleFunction;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The gauges of one queue, all read from one cached {@link QueueHealth}: one health query per refresh interval at
 * most, whatever the number of gauges, registries and scrapes. A scrape that finds the snapshot stale queries the
 * database on its own thread; a scrape that meets another one querying reads the old snapshot instead of waiting.
 * When the query fails, every gauge reads NaN until one succeeds (never the last values: they would show a healthy
 * backlog during an outage).
 */
final class QueueGauges {
    private static final Logger log = LoggerFactory.getLogger(QueueGauges.class);

    private final ClaimQueue<?> queue;
    private final long refreshNanos;
    private final ReentrantLock refreshing = new ReentrantLock();
    private volatile @Nullable QueueHealth health;
    private volatile long readAt;
    private volatile boolean everRead;

    QueueGauges(ClaimQueue<?> queue, Duration refresh, MeterRegistry registry) {
        this.queue = queue;
        this.refreshNanos = refresh.toNanos();
        gauge(registry, BatonMetrics.QUEUE_ELIGIBLE, QueueHealth::eligible);
        gauge(registry, BatonMetrics.QUEUE_WAITING, QueueHealth::waiting);
        gauge(registry, BatonMetrics.QUEUE_PROCESSING, QueueHealth::inFlight);
        gauge(registry, BatonMetrics.QUEUE_EXPIRED, QueueHealth::expiredLeases);
        gauge(registry, BatonMetrics.QUEUE_DEAD, QueueHealth::dead);
        gauge(registry, BatonMetrics.QUEUE_UNKNOWN, QueueHealth::unknown);
        if (queue.sendDurability() != SendDurability.OFF) {
            gauge(
                    registry,
                    BatonMetrics.QUEUE_FAILOVER_STANDBYS,
                    h -> h.failoverStandbys() < 0 ? Double.NaN : h.failoverStandbys());
        }
        TimeGauge.builder(
                        BatonMetrics.QUEUE_OLDEST_AGE,
                        this,
                        TimeUnit.SECONDS,
                        g -> g.read(h -> {
                            Duration age = h.oldestEligibleAge();
                            return age == null ? 0 : age.toNanos() / 1e9;
                        }))
                .tag("queue", queue.name())
                .description("age of the oldest eligible row (0 when none is eligible)")
                .strongReference(true)
                .register(registry);
    }

    private void gauge(MeterRegistry registry, String name, ToDoubleFunction<QueueHealth> value) {
        Gauge.builder(name, this, g -> g.read(value)).tag("queue", queue.name()).register(registry);
    }

    /**
     * {@code value} of the snapshot, refreshed first when stale; NaN before the first successful query and after a
     * failed one.
     */
    double read(ToDoubleFunction<QueueHealth> value) {
        if (!everRead || System.nanoTime() - readAt >= refreshNanos) {
            refresh();
        }
        QueueHealth h = health;
        return h == null ? Double.NaN : value.applyAsDouble(h);
    }

    private void refresh() {
        if (!refreshing.tryLock()) {
            return; // another scrape is querying: read the snapshot we have
        }
        try {
            if (everRead && System.nanoTime() - readAt < refreshNanos) {
                return;
            }
            try {
                health = queue.health();
            } catch (RuntimeException e) {
                // NaN until a refresh succeeds: the last values would show a healthy backlog during an outage
                health = null;
                log.warn(
                        "could not measure queue '{}' for its gauges; they read NaN until it answers", queue.name(), e);
            }
            readAt = System.nanoTime(); // a failure waits for the next interval too: no query storm while it is down
            everRead = true;
        } finally {
            refreshing.unlock();
        }
    }
}
