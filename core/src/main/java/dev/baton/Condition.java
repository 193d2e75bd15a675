package dev.baton;

import dev.baton.internal.values.Identifiers;
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

    /**
     * The longest age {@link #olderThan} accepts: 36,500 days (about 100 years), within every database's interval
     * and date range.
     */
    Duration MAX_AGE = Duration.ofDays(36_500);

    /**
     * {@code column < database now - age}: the row's timestamp is older than {@code age}. The database's clock is
     * read in UTC ({@code clock_timestamp()} on PostgreSQL, {@code UTC_TIMESTAMP(6)} on MySQL and MariaDB, {@code
     * SYSUTCDATETIME()} on SQL Server), so the column must be zone-aware ({@code timestamptz}, {@code
     * datetimeoffset}) or hold UTC ({@code DATETIME}, {@code datetime2}); {@code verify()} of a queue refuses the
     * types that cannot (PostgreSQL {@code timestamp}, MySQL {@code TIMESTAMP}, SQL Server {@code datetime}) and
     * defaults that fill a local wall clock (SQL Server {@code GETDATE()} or {@code SYSDATETIME()}, MySQL {@code
     * CURRENT_TIMESTAMP} in a {@code DATETIME}), naming the UTC default to use, and so does a host table's {@link
     * StateTable#verify(String...) verify(column)} for the columns it is given: pass the column to it at start-up.
     *
     * @throws ConfigurationException if {@code age} is negative or over {@link #MAX_AGE}
     */
    static Condition olderThan(String column, Duration age) {
        Objects.requireNonNull(age, "age");
        if (age.isNegative() || age.compareTo(MAX_AGE) > 0) {
            throw new ConfigurationException(
                    "olderThan(" + column + ") needs an age of 0 to " + MAX_AGE.toDays() + " days, was " + age);
        }
        return new OlderThan(Identifiers.check(column), age);
    }

    /**
     * {@code (column IS NULL OR column <= database now)}: a due time that has come (or none set). Compared with the
     * database's UTC clock, like {@link #olderThan}: the column must be zone-aware or hold UTC, which a queue's {@code
     * verify()} and a host table's {@link StateTable#verify(String...) verify(column)} check.
     */
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
        /**
         * Checks the codes: integers (stored as {@code Long}) or strings a machine accepts.
         *
         * @throws ConfigurationException if there is no code, or one of another type or with quotes, backslashes or
         *     control characters
         */
        public StateIn {
            Identifiers.check(column);
            Objects.requireNonNull(codes, "codes");
            Objects.requireNonNull(states, "states");
            if (codes.isEmpty()) {
                throw new ConfigurationException("a state guard on " + column + " needs at least one code");
            }
            List<Object> checked = new java.util.ArrayList<>();
            for (Object code : codes) {
                if (code instanceof Integer || code instanceof Long || code instanceof Short || code instanceof Byte) {
                    checked.add(((Number) code).longValue());
                } else if (code instanceof String) {
                    try {
                        checked.add(dev.baton.spi.SqlVocabulary.checkedTextCode(code));
                    } catch (IllegalArgumentException e) {
                        throw new ConfigurationException("state guard on " + column + ": " + e.getMessage());
                    }
                } else {
                    throw new ConfigurationException(
                            "state guard on " + column + ": a code must be an integer or a" + " String, was "
                                    + (code == null ? "null" : code.getClass().getName()));
                }
            }
            codes = List.copyOf(checked);
            states = List.copyOf(states);
        }

        @Override
        public String toString() {
            return column + " IN " + Arrays.toString(states.toArray());
        }
    }
}
