package dev.baton.internal.queue;

import dev.baton.Condition;
import dev.baton.GroupWeights;
import dev.baton.RateLimit;
import dev.baton.RetryPolicy;
import dev.baton.SendDurability;
import dev.baton.StateMachine;
import dev.baton.internal.Engine;
import java.time.Duration;
import java.util.List;

/**
 * A claim queue as its builder validated it: names as configured, unquoted. {@code sending}, {@code unknown},
 * {@code ageColumn} and {@code orderKeyColumn} may be null.
 *
 * @param <S> the enum of states
 */
public record QueueDefinition<S extends Enum<S>>(
        Engine engine,
        String name,
        String table,
        String idColumn,
        String stateColumn,
        StateMachine<S> machine,
        S claimable,
        S processing,
        S dead,
        S sending,
        S unknown,
        List<Condition> eligible,
        List<String> orderBy,
        List<String> select,
        Duration lease,
        Duration sendTimeout,
        RetryPolicy retry,
        String leaseColumn,
        String tokenColumn,
        String attemptsColumn,
        String nextAttemptColumn,
        String errorColumn,
        String ageColumn,
        String orderKeyColumn,
        Shaping shaping,
        SendDurability sendDurability,
        Duration sendDurabilityWait) {
    /** Copies the lists; an empty order means the id column. */
    public QueueDefinition {
        eligible = List.copyOf(eligible);
        orderBy = List.copyOf(orderBy.isEmpty() ? List.of(idColumn) : orderBy);
        select = List.copyOf(select);
    }

    /**
     * How claims shape what they take: a per-key limit ({@code keyLimitColumn} null for none), round-robin across the
     * values of {@code groupColumn} (null for none), a priority column, higher first (null for none), and a rate limit
     * (null for none).
     */
    public record Shaping(
            String keyLimitColumn,
            int keyLimit,
            String groupColumn,
            GroupWeights groupWeights,
            String priorityColumn,
            RateLimit rateLimit) {
        /** No shaping: today's claim. */
        public static final Shaping NONE = new Shaping(null, 0, null, GroupWeights.none(), null, null);

        /** True when a claim ranks candidates before it picks (a per-key limit or fairness). */
        public boolean ranked() {
            return keyLimitColumn != null || groupColumn != null;
        }
    }
}
