package dev.baton.internal.queue;

import dev.baton.Condition;
import dev.baton.GroupWeights;
import dev.baton.RateLimit;
import dev.baton.RetryPolicy;
import dev.baton.internal.Engine;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * A claim queue as its builder validated it, in named parts; names as configured, unquoted.
 *
 * @param engine the engine the queue runs on
 * @param name the queue's name
 * @param columns the table and its columns
 * @param states the states a claim moves rows through
 * @param claiming which rows a claim takes, in what order, and what it returns
 * @param timing the lease and the retries
 * @param shaping how claims shape what they take
 * @param send the send protocol of a non-idempotent sink, or empty
 * @param <S> the enum of states
 */
public record QueueDefinition<S extends Enum<S>>(
        Engine engine,
        String name,
        QueueColumns columns,
        QueueStates<S> states,
        Claiming claiming,
        Timing timing,
        Shaping shaping,
        Optional<SendProtocol<S>> send) {

    /**
     * Which rows a claim takes and what it returns: the eligibility guards, the order (the id column when none is
     * configured) and the selected columns. Copies the lists.
     */
    public record Claiming(List<Condition> eligible, List<String> orderBy, List<String> select) {
        /** Copies the lists. */
        public Claiming {
            eligible = List.copyOf(eligible);
            orderBy = List.copyOf(orderBy);
            select = List.copyOf(select);
        }
    }

    /** The lease a claim stamps, and the backoff and attempts of a failed row. */
    public record Timing(Duration lease, RetryPolicy retry) {}

    /**
     * How claims shape what they take: a per-key limit ({@code keyLimitColumn} null for none), per-key order (an
     * earlier row of the key first; {@code orderKeyColumn} null for none), round-robin across the values of
     * {@code groupColumn} (null for none), a priority column, higher first (null for none), and a rate limit (null for
     * none).
     */
    public record Shaping(
            String keyLimitColumn,
            int keyLimit,
            String orderKeyColumn,
            String groupColumn,
            GroupWeights groupWeights,
            String priorityColumn,
            RateLimit rateLimit) {
        /** No shaping: today's claim. */
        public static final Shaping NONE = new Shaping(null, 0, null, null, GroupWeights.none(), null, null);

        /** True when a claim ranks candidates before it picks (a per-key limit or fairness). */
        public boolean ranked() {
            return keyLimitColumn != null || groupColumn != null;
        }
    }
}
