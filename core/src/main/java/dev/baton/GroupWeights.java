package dev.baton;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.UUID;
import org.jspecify.annotations.Nullable;

/**
 * The weights of some groups of a round-robin claim ({@link ClaimQueueBuilder#fairAcross(String, GroupWeights)}): a
 * group of weight {@code w} takes up to {@code w} rows per turn where a group without a weight takes one, so over
 * groups {@code gold} (weight 3), {@code b} and {@code c} that all have rows, a claim of 10 takes 6 rows of {@code gold}
 * and 2 each of {@code b} and {@code c}. Immutable and thread-safe; validated when made, before any SQL.
 *
 * <pre>{@code
 * GroupWeights.of(Map.of("gold", 3, "silver", 2)) // every other group: 1
 * }</pre>
 *
 * <p>Groups are named by their value in the group column, as JDBC binds it ({@code String}, {@code Integer}, {@code
 * Long}, {@code Short}, {@code BigInteger}, {@code BigDecimal}, {@code UUID}), and the database compares them with the
 * column as it compares the groups themselves (MySQL and MariaDB with the column's collation, so usually ignoring
 * case). The NULL group always has weight 1. The weights are bind parameters of every claim, never SQL text.
 */
public final class GroupWeights {
    /** The most groups that may have a weight: {@value}; each is two bind parameters of every claim. */
    public static final int MAX_GROUPS = 100;
    /** The highest weight: {@value}, the largest batch a claim takes. */
    public static final int MAX_WEIGHT = 1000;

    private static final GroupWeights NONE = new GroupWeights(Map.of());

    private final Map<Object, Integer> weights;

    private GroupWeights(Map<Object, Integer> weights) {
        this.weights = weights;
    }

    /**
     * No weights: every group takes one row per turn (what {@link ClaimQueueBuilder#fairAcross(String)} does).
     *
     * @return the empty weights
     */
    public static GroupWeights none() {
        return NONE;
    }

    /**
     * The given weights, copied (in the map's iteration order); groups not in the map have weight 1.
     *
     * @param weights group value to weight, at most {@value #MAX_GROUPS} entries, each weight 1 to {@value #MAX_WEIGHT}
     * @return the weights
     * @throws ConfigurationException naming the offender: a null group or weight, a weight out of range, a group of a
     *     type JDBC does not bind as a column value, or more than {@value #MAX_GROUPS} groups
     */
    public static GroupWeights of(Map<?, Integer> weights) {
        Objects.requireNonNull(weights, "weights");
        if (weights.size() > MAX_GROUPS) {
            throw new ConfigurationException("at most " + MAX_GROUPS + " groups may have a weight, was "
                    + weights.size() + ": each weight is two bind parameters of every claim");
        }
        Map<Object, Integer> copy = new LinkedHashMap<>();
        for (Map.Entry<?, Integer> e : weights.entrySet()) {
            Object group = e.getKey();
            Integer weight = e.getValue();
            if (group == null) {
                throw new ConfigurationException(
                        "a group weight needs a group value, was null (the NULL group always has weight 1)");
            }
            if (!(group instanceof String
                    || group instanceof Integer
                    || group instanceof Long
                    || group instanceof Short
                    || group instanceof BigInteger
                    || group instanceof BigDecimal
                    || group instanceof UUID)) {
                throw new ConfigurationException(
                        "group " + group + " is a " + group.getClass().getName()
                                + ": a group weight names a String, Integer, Long, Short, BigInteger, BigDecimal or UUID value"
                                + " of the group column");
            }
            if (weight == null || weight < 1 || weight > MAX_WEIGHT) {
                throw new ConfigurationException(
                        "weight of group '" + group + "' must be 1.." + MAX_WEIGHT + ", was " + weight);
            }
            copy.put(group, weight);
        }
        return copy.isEmpty() ? NONE : new GroupWeights(Collections.unmodifiableMap(copy));
    }

    /**
     * The weight of {@code group}: its own, or 1.
     *
     * @param group a value of the group column
     * @return 1 to {@value #MAX_WEIGHT}
     */
    public int weightOf(Object group) {
        return weights.getOrDefault(group, 1);
    }

    /**
     * The groups that have a weight, and their weights, in the order given; unmodifiable.
     *
     * @return group value to weight
     */
    public Map<Object, Integer> asMap() {
        return weights;
    }

    @Override
    public boolean equals(@Nullable Object o) {
        return o instanceof GroupWeights other && weights.equals(other.weights);
    }

    @Override
    public int hashCode() {
        return weights.hashCode();
    }

    @Override
    public String toString() {
        return "GroupWeights" + weights;
    }
}
