package dev.baton;

import dev.baton.internal.Identifiers;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;

/**
 * A guard on a row, used by bulk transitions and claim queues. Conditions in a list are combined with {@code AND}.
 * Column names are validated when the condition is made; values always travel as bind parameters; time conditions
 * are evaluated by the database clock.
 */
public sealed interface Condition {

    /** {@code column IS NULL}. */
    static Condition isNull(String column) {
        return new IsNull(Identifiers.check(column));
    }

    /** {@code column IS NOT NULL}. */
    static Condition isNotNull(String column) {
        return new IsNotNull(Identifiers.check(column));
    }

    /** {@code column = value}; the value must not be null (use {@link #isNull}). */
    static Condition eq(String column, Object value) {
        return new Equals(Identifiers.check(column), Objects.requireNonNull(value, "value (use isNull for NULL)"));
    }

    /** {@code column IN (values)}; at least one value, none null. */
    static Condition in(String column, Object... values) {
        if (values.length == 0) {
            throw new ConfigurationException("in(" + column + ") needs at least one value");
        }
        for (Object v : values) {
            Objects.requireNonNull(v, "value");
        }
        return new In(Identifiers.check(column), List.of(values));
    }

    /** {@code column < database now - age}: the row's timestamp is older than {@code age}. */
    static Condition olderThan(String column, Duration age) {
        Objects.requireNonNull(age, "age");
        if (age.isNegative()) {
            throw new ConfigurationException("olderThan(" + column + ") needs a non-negative age, was " + age);
        }
        return new OlderThan(Identifiers.check(column), age);
    }

    /** {@code (column IS NULL OR column <= database now)}: a due time that has come (or none set). */
    static Condition due(String column) {
        return new Due(Identifiers.check(column));
    }

    /** {@code (a OR b OR …)}: any of the given conditions, each a conjunction of its parts. */
    static Condition anyOf(List<Condition> first, List<Condition> second) {
        return new AnyOf(List.of(List.copyOf(first), List.copyOf(second)));
    }

    /** A plain column guard: {@code column IS NULL}. */
    record IsNull(String column) implements Condition {}

    /** {@code column IS NOT NULL}. */
    record IsNotNull(String column) implements Condition {}

    /** {@code column = value}. */
    record Equals(String column, Object value) implements Condition {}

    /** {@code column IN (values)}. */
    record In(String column, List<Object> values) implements Condition {}

    /** {@code column < now - age}. */
    record OlderThan(String column, Duration age) implements Condition {}

    /** {@code column IS NULL OR column <= now}. */
    record Due(String column) implements Condition {}

    /** A disjunction of conjunctions. */
    record AnyOf(List<List<Condition>> alternatives) implements Condition {}

    /**
     * {@code column IN (codes)} for states of a machine; made by {@link StateTable#is}.
     *
     * @param column the state column
     * @param codes the stored codes
     * @param states the states, for messages
     */
    record StateIn(String column, List<Object> codes, List<? extends Enum<?>> states) implements Condition {
        @Override
        public String toString() {
            return column + " IN " + Arrays.toString(states.toArray());
        }
    }
}
