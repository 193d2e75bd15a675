package dev.baton.console.internal;

import dev.baton.QueueHealth;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The last samples of one queue's health, kept in memory for the page's numbers and its backlog chart. The page reads
 * the latest sample instead of measuring on every view: each sample is a few bounded counts ({@link
 * QueueAdmin#health()}), and a page opened by many operators must not multiply them. Thread-safe.
 */
public final class Sampler {
    private static final Logger LOG = LoggerFactory.getLogger(Sampler.class);

    /** One measurement, or the error that took its place. */
    public record Sample(Instant at, @Nullable QueueHealth health, @Nullable String error) {}

    private final QueueAdmin<?> queue;
    private final int capacity;
    private final ArrayDeque<Sample> samples = new ArrayDeque<>();

    public Sampler(QueueAdmin<?> queue, int capacity) {
        this.queue = queue;
        this.capacity = capacity;
    }

    /** Measures the queue now and keeps the sample. */
    public Sample sample() {
        Sample s;
        try {
            s = new Sample(Instant.now(), queue.health(), null);
        } catch (RuntimeException e) {
            LOG.warn("console: measuring queue '{}' failed", queue.name(), e);
            s = new Sample(Instant.now(), null, String.valueOf(e.getMessage()));
        }
        synchronized (samples) {
            samples.addLast(s);
            while (samples.size() > capacity) {
                samples.removeFirst();
            }
        }
        return s;
    }

    /** The latest sample, measuring first if there is none. */
    public Sample latest() {
        synchronized (samples) {
            if (!samples.isEmpty()) {
                return samples.getLast();
            }
        }
        return sample();
    }

    /** The samples kept, oldest first. */
    public List<Sample> all() {
        synchronized (samples) {
            return new ArrayList<>(samples);
        }
    }
}
