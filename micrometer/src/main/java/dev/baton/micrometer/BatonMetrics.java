package dev.baton.micrometer;

import dev.baton.BatonListener;
import dev.baton.ClaimQueue;
import dev.baton.CommitDurability;
import dev.baton.EpochChange;
import dev.baton.Outbox;
import dev.baton.OutboxMessage;
import dev.baton.Outcome;
import dev.baton.SendDurability;
import dev.baton.TransitionResult;
import dev.baton.TransitionsInDoubt;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/**
 * Micrometer meters for one {@code Baton} instance: a {@link BatonListener} that counts and times what Baton did,
 * and gauges per queue ({@link #monitor}) read from {@link ClaimQueue#health()} at most once per refresh interval.
 * Every tag takes its values from a bounded set: the names of your tables, queues and outboxes, and fixed words
 * (result kinds, reasons). Thread-safe.
 *
 * <pre>{@code
 * BatonMetrics metrics = new BatonMetrics(meterRegistry);
 * Baton baton = Baton.builder(dataSource).listener(metrics).build();
 * ClaimQueue<Sync> sync = baton.queue("order-sync")...build();
 * metrics.monitor(sync);   // the queue's gauges
 * }</pre>
 *
 * <p>The meters, by name (tags in braces):
 *
 * <ul>
 *   <li>{@value #TRANSITIONS} {table, result}: single-row transitions by result ({@code applied},
 *       {@code already_in_target}, {@code in_doubt}, {@code rejected}, {@code not_found}, {@code conflict});
 *   <li>{@value #BULK_ROWS} {table}: rows moved by bulk transitions;
 *   <li>{@value #CLAIMS} {queue}: claims that returned rows; {@value #ROWS_CLAIMED} {queue}: the rows;
 *   <li>{@value #COMPLETIONS}, {@value #RETRIES}, {@value #RELEASES} {queue}: rows a committed outcome completed,
 *       sent back for a retry, released;
 *   <li>{@value #DEAD_LETTERS} {queue, reason}: rows that reached the dead state ({@code handler},
 *       {@code retries_exhausted}, {@code refused_by_database}, {@code lease_expired}, {@code reconciler});
 *   <li>{@value #LEASES_LOST} {queue}: claims a worker found lost (by a heartbeat or a refused outcome);
 *   <li>{@value #FENCED_REFUSED} {queue, write}: fenced writes the database refused because the claim was no longer
 *       held ({@code outcome}, {@code heartbeat}, {@code send});
 *   <li>{@value #RECLAIMED} {queue}: expired leases returned to the queue; {@value #UNKNOWN_SENDS} {queue}: rows
 *       moved to the unknown state (an expired send, or a handler's unknown outcome);
 *   <li>{@value #SENDS_NOT_DURABLE} {queue, policy}: SENDING marks no standby had within the queue's wait ({@code
 *       warn}: sent anyway; {@code require}: the send was refused);
 *   <li>{@value #EPOCH_CHANGES} {queue}: failovers a claim noticed (the writer's epoch changed); {@value
 *       #SENDS_IN_DOUBT} {queue}: rows whose SENDING mark this process found lost with the old writer, moved to the
 *       unknown state for reconciliation;
 *   <li>{@value #TRANSITIONS_IN_DOUBT} {table}: transitions this instance applied and acknowledged that its failover
 *       audit ({@code Baton.Builder.failoverAudit}) found lost with the old writer after an epoch change;
 *   <li>{@value #WORKER_ERRORS} {queue}: errors a worker loop caught; {@value #TRANSIENT_RETRIES}: transient
 *       failures retried (no tag: the operation is free text);
 *   <li>{@value #HANDLER} (timer) {queue, outcome}: handler calls by what they returned ({@code complete},
 *       {@code retry}, {@code dead_letter}, {@code release}, {@code unknown}, or {@code error} when the handler threw
 *       or returned null);
 *   <li>{@value #ENQUEUED} {outbox}: messages stored by operations on the data source; {@value #DISPATCHED}
 *       {outbox}: messages a sink accepted; {@value #LAG} (timer) {outbox}: from {@code created_at} to the sink's
 *       acceptance;
 *   <li>gauges per monitored queue {queue}, from {@link ClaimQueue#health()}: {@value #QUEUE_ELIGIBLE},
 *       {@value #QUEUE_WAITING}, {@value #QUEUE_PROCESSING}, {@value #QUEUE_EXPIRED}, {@value #QUEUE_DEAD},
 *       {@value #QUEUE_UNKNOWN}, {@value #QUEUE_OLDEST_AGE} (seconds; 0 when nothing is eligible), and for a queue whose send
 *       durability is not {@code OFF} {@value #QUEUE_FAILOVER_STANDBYS} (standbys a failover could promote; NaN when
 *       the database user cannot read them). Until the
 *       first query succeeds they read NaN; after a failed query they keep the last values.
 * </ul>
 *
 * <p>Counters report what Baton committed on the data source. Operations on a caller's connection fire no listener
 * (Baton does not see the commit), so they are not counted.
 */
public final class BatonMetrics implements BatonListener {
    /** Single-row transitions. */
    public static final String TRANSITIONS = "baton.transitions";
    /** Rows moved by bulk transitions. */
    public static final String BULK_ROWS = "baton.bulk.transitions.rows";
    /** Claims that returned rows. */
    public static final String CLAIMS = "baton.claims";
    /** Rows claimed. */
    public static final String ROWS_CLAIMED = "baton.rows.claimed";
    /** Rows completed. */
    public static final String COMPLETIONS = "baton.completions";
    /** Rows sent back for a retry. */
    public static final String RETRIES = "baton.retries";
    /** Rows released. */
    public static final String RELEASES = "baton.releases";
    /** Rows dead-lettered. */
    public static final String DEAD_LETTERS = "baton.dead.letters";
    /** Claims found lost. */
    public static final String LEASES_LOST = "baton.leases.lost";
    /** Fenced writes refused. */
    public static final String FENCED_REFUSED = "baton.fenced.writes.refused";
    /** Expired leases reclaimed. */
    public static final String RECLAIMED = "baton.reclaimed";
    /** Rows moved to the unknown state. */
    public static final String UNKNOWN_SENDS = "baton.unknown.sends";
    /** SENDING marks not known durable on a standby within the queue's wait. */
    public static final String SENDS_NOT_DURABLE = "baton.sends.not.durable";
    /** Commits of transitions and transactions not known durable on a standby within the instance's wait. */
    public static final String COMMITS_NOT_DURABLE = "baton.commits.not.durable";
    /** Failovers a claim noticed. */
    public static final String EPOCH_CHANGES = "baton.epoch.changes";
    /** Sends found in doubt after a failover (their marks lost with the old writer). */
    public static final String SENDS_IN_DOUBT = "baton.sends.in.doubt";
    /** Acknowledged transitions found lost with the old writer after a failover (the failover audit). */
    public static final String TRANSITIONS_IN_DOUBT = "baton.transitions.in.doubt";
    /** Errors caught by worker loops. */
    public static final String WORKER_ERRORS = "baton.worker.errors";
    /** Transient failures retried. */
    public static final String TRANSIENT_RETRIES = "baton.transient.retries";
    /** Handler calls (timer). */
    public static final String HANDLER = "baton.handler";
    /** Outbox messages stored. */
    public static final String ENQUEUED = "baton.outbox.enqueued";
    /** Outbox messages accepted by a sink. */
    public static final String DISPATCHED = "baton.outbox.dispatched";
    /** Outbox lag (timer). */
    public static final String LAG = "baton.outbox.lag";

    /** Rows a worker could claim now (gauge). */
    public static final String QUEUE_ELIGIBLE = "baton.queue.eligible";
    /** Rows in the claimable state not due yet, not eligible, or held behind an older row of their key (gauge). */
    public static final String QUEUE_WAITING = "baton.queue.waiting";
    /** Rows claimed with a live lease (gauge). */
    public static final String QUEUE_PROCESSING = "baton.queue.processing";
    /** Claimed rows whose lease expired, not yet reclaimed (gauge). */
    public static final String QUEUE_EXPIRED = "baton.queue.expired.leases";
    /** Rows in the dead state (gauge). */
    public static final String QUEUE_DEAD = "baton.queue.dead";
    /** Rows in the unknown state (gauge). */
    public static final String QUEUE_UNKNOWN = "baton.queue.unknown";
    /** Standbys a failover could promote, for a queue whose send durability is checked (gauge). */
    public static final String QUEUE_FAILOVER_STANDBYS = "baton.queue.failover.standbys";
    /** Age of the oldest eligible row by the queue's age column (time gauge). */
    public static final String QUEUE_OLDEST_AGE = "baton.queue.oldest.eligible.age";

    /** The default interval between two health queries of one queue. */
    public static final Duration DEFAULT_GAUGE_REFRESH = Duration.ofSeconds(15);

    private record Key(
            String name,
            @Nullable String tag1,
            @Nullable String value1,
            @Nullable String tag2,
            @Nullable String value2) {}

    private final MeterRegistry registry;
    private final Duration gaugeRefresh;
    private final Map<Key, Counter> counters = new ConcurrentHashMap<>();
    private final Map<Key, Timer> timers = new ConcurrentHashMap<>();
    private final Map<String, QueueGauges> gauges = new ConcurrentHashMap<>();

    /** Meters in {@code registry}; gauges refreshed at most every {@link #DEFAULT_GAUGE_REFRESH}. */
    public BatonMetrics(MeterRegistry registry) {
        this(registry, DEFAULT_GAUGE_REFRESH);
    }

    /**
     * Meters in {@code registry}; each monitored queue's gauges query the database at most once per
     * {@code gaugeRefresh} (zero: at every read), however many gauges and scrapes there are.
     *
     * @throws IllegalArgumentException if {@code gaugeRefresh} is negative
     */
    public BatonMetrics(MeterRegistry registry, Duration gaugeRefresh) {
        this.registry = Objects.requireNonNull(registry, "registry");
        this.gaugeRefresh = Objects.requireNonNull(gaugeRefresh, "gaugeRefresh");
        if (gaugeRefresh.isNegative()) {
            throw new IllegalArgumentException("gaugeRefresh must not be negative, was " + gaugeRefresh);
        }
    }

    /**
     * Registers the gauges of {@code queue} (once per queue name; a second call is a no-op).
     *
     * @return this
     */
    public BatonMetrics monitor(ClaimQueue<?> queue) {
        Objects.requireNonNull(queue, "queue");
        gauges.computeIfAbsent(queue.name(), n -> new QueueGauges(queue, gaugeRefresh, registry));
        return this;
    }

    /**
     * Registers the gauges of the outbox's queue.
     *
     * @return this
     */
    public BatonMetrics monitor(Outbox outbox) {
        return monitor(Objects.requireNonNull(outbox, "outbox").queue());
    }

    private Counter counter(String name, @Nullable String tag, @Nullable String value) {
        return counter(name, tag, value, null, null);
    }

    private Counter counter(
            String name,
            @Nullable String tag1,
            @Nullable String value1,
            @Nullable String tag2,
            @Nullable String value2) {
        return counters.computeIfAbsent(new Key(name, tag1, value1, tag2, value2), k -> {
            Counter.Builder b = Counter.builder(name);
            if (tag1 != null) {
                b.tag(tag1, value1);
            }
            if (tag2 != null) {
                b.tag(tag2, value2);
            }
            return b.register(registry);
        });
    }

    private Timer timer(String name, String tag1, String value1, @Nullable String tag2, @Nullable String value2) {
        return timers.computeIfAbsent(new Key(name, tag1, value1, tag2, value2), k -> {
            Timer.Builder b = Timer.builder(name).tag(tag1, value1);
            if (tag2 != null) {
                b.tag(tag2, value2);
            }
            return b.register(registry);
        });
    }

    private static String word(Enum<?> e) {
        return e.name().toLowerCase(Locale.ROOT);
    }

    @Override
    public void onTransition(String table, TransitionResult<?> result) {
        String kind;
        if (result instanceof TransitionResult.Applied<?>) {
            kind = "applied";
        } else if (result instanceof TransitionResult.AlreadyInTarget<?>) {
            kind = "already_in_target";
        } else if (result instanceof TransitionResult.InDoubt<?>) {
            kind = "in_doubt";
        } else if (result instanceof TransitionResult.Rejected<?>) {
            kind = "rejected";
        } else if (result instanceof TransitionResult.NotFound<?>) {
            kind = "not_found";
        } else {
            kind = "conflict";
        }
        counter(TRANSITIONS, "table", table, "result", kind).increment();
    }

    @Override
    public void onBulkTransition(String table, Enum<?> target, long rows, int batches) {
        counter(BULK_ROWS, "table", table).increment(rows);
    }

    @Override
    public void onClaim(String queue, int count) {
        counter(CLAIMS, "queue", queue).increment();
        counter(ROWS_CLAIMED, "queue", queue).increment(count);
    }

    @Override
    public void onSettled(String queue, Object id, int attempt, Settled settled) {
        switch (settled) {
            case COMPLETED -> counter(COMPLETIONS, "queue", queue).increment();
            case RETRIED -> counter(RETRIES, "queue", queue).increment();
            case RELEASED -> counter(RELEASES, "queue", queue).increment();
            case UNKNOWN -> counter(UNKNOWN_SENDS, "queue", queue).increment();
            default -> {} // dead letters arrive with their reason (onDeadLetter), lost leases by onLeaseLost
        }
    }

    @Override
    public void onDeadLetter(String queue, long rows, DeadLetterReason reason) {
        counter(DEAD_LETTERS, "queue", queue, "reason", word(reason)).increment(rows);
    }

    @Override
    public void onLeaseLost(String queue, Object id) {
        counter(LEASES_LOST, "queue", queue).increment();
    }

    @Override
    public void onFencedWriteRefused(String queue, Object id, FencedWrite write) {
        counter(FENCED_REFUSED, "queue", queue, "write", word(write)).increment();
    }

    @Override
    public void onReclaim(String queue, long rows) {
        counter(RECLAIMED, "queue", queue).increment(rows);
    }

    @Override
    public void onUnknownSends(String queue, long rows) {
        counter(UNKNOWN_SENDS, "queue", queue).increment(rows);
    }

    @Override
    public void onSendNotDurable(String queue, Object id, SendDurability policy) {
        counter(SENDS_NOT_DURABLE, "queue", queue, "policy", word(policy)).increment();
    }

    /** Tagged by policy only: the operation names a row. */
    @Override
    public void onCommitNotDurable(String operation, CommitDurability policy, String reason) {
        counter(COMMITS_NOT_DURABLE, "policy", word(policy)).increment();
    }

    @Override
    public void onEpochChange(EpochChange change) {
        counter(EPOCH_CHANGES, "queue", change.queue()).increment();
        counter(SENDS_IN_DOUBT, "queue", change.queue()).increment(change.lostMarks());
    }

    @Override
    public void onTransitionsInDoubt(TransitionsInDoubt report) {
        counter(TRANSITIONS_IN_DOUBT, "table", report.table()).increment(report.lost());
    }

    @Override
    public void onWorkerError(String queue, Throwable error) {
        counter(WORKER_ERRORS, "queue", queue).increment();
    }

    @Override
    public void onTransientRetry(String operation, int attempt, SQLException cause) {
        counter(TRANSIENT_RETRIES, null, null).increment();
    }

    @Override
    public void onHandled(
            String queue,
            Object id,
            int attempt,
            @Nullable Outcome<?> outcome,
            @Nullable Throwable failure,
            Duration took) {
        String result = outcome == null ? "error" : word(outcome.kind());
        timer(HANDLER, "queue", queue, "outcome", result).record(took.toNanos(), TimeUnit.NANOSECONDS);
    }

    @Override
    public void onEnqueued(String outbox, String topic, long id) {
        counter(ENQUEUED, "outbox", outbox).increment();
    }

    @Override
    public void onDelivered(String outbox, OutboxMessage message, @Nullable Instant createdAt) {
        counter(DISPATCHED, "outbox", outbox).increment();
        if (createdAt == null) {
            return;
        }
        Duration lag = Duration.between(createdAt, Instant.now()); // negative when the clocks disagree: 0
        timer(LAG, "outbox", outbox, null, null).record(lag.isNegative() ? 0 : lag.toNanos(), TimeUnit.NANOSECONDS);
    }

    @Override
    public String toString() {
        return "BatonMetrics[" + gauges.keySet() + "]";
    }
}
