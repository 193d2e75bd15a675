package dev.baton;

import dev.baton.internal.values.Identifiers;
import java.time.Instant;
import org.jspecify.annotations.Nullable;

/**
 * What a {@link DeadLetters#find search of the dead rows} looks for, and in which order: an error text, a key, an id
 * range, a time range on a timestamp column the host names, lowest or highest id first. Every criterion is optional;
 * {@link #all()} is every dead row, lowest id first. Immutable: each method returns a new query. Thread-safe.
 *
 * <pre>{@code
 * DeadLetterQuery q = DeadLetterQuery.all()
 *     .errorContains("422")
 *     .key("customer-7")
 *     .changedBetween("updated_at", Instant.parse("2026-12-03T02:00:00Z"), Instant.parse("2026-12-03T03:00:00Z"))
 *     .newestFirst();
 * DeadRowPage page = queue.deadLetters().find(q, null, 50);
 * }</pre>
 *
 * @param errorContains the text the error column must contain, ignoring case ({@code %}, {@code _} match only
 *     themselves), 1..{@value DeadLetters#SEARCH_TEXT} characters, or null
 * @param key the value the queue's key column ({@link ClaimQueueBuilder#orderedPerKey}) must equal, or null
 * @param idFrom the lowest id, inclusive, or null
 * @param idTo the highest id, inclusive, or null
 * @param timeColumn a timestamp column of the table that the time range applies to (for a dead row, one the database
 *     sets on every update tells when it died), or null
 * @param from the earliest time, inclusive, or null
 * @param to the latest time, exclusive, or null
 * @param highestFirst true for the highest id first (the newest, for ids that grow)
 */
public record DeadLetterQuery(
        @Nullable String errorContains,
        @Nullable Object key,
        @Nullable Object idFrom,
        @Nullable Object idTo,
        @Nullable String timeColumn,
        @Nullable Instant from,
        @Nullable Instant to,
        boolean highestFirst) {

    /**
     * Checks the text's length, the column's name and that a time range has a column.
     *
     * @throws ConfigurationException for an empty or longer text, a time range without a column
     * @throws InvalidIdentifierException if the time column is not a plain identifier
     */
    public DeadLetterQuery {
        if (errorContains != null && (errorContains.isEmpty() || errorContains.length() > DeadLetters.SEARCH_TEXT)) {
            throw new ConfigurationException("the search text must be 1.." + DeadLetters.SEARCH_TEXT
                    + " characters, was " + errorContains.length());
        }
        if (timeColumn != null) {
            Identifiers.check(timeColumn);
        } else if (from != null || to != null) {
            throw new ConfigurationException("a time range needs the column it applies to");
        }
    }

    /** Every dead row, lowest id first. */
    public static DeadLetterQuery all() {
        return new DeadLetterQuery(null, null, null, null, null, null, null, false);
    }

    /** Rows whose error contains {@code text}, ignoring case; null for any error. */
    public DeadLetterQuery errorContains(@Nullable String text) {
        return new DeadLetterQuery(text, key, idFrom, idTo, timeColumn, from, to, highestFirst);
    }

    /** Rows whose key column equals {@code value}; null for any key. */
    public DeadLetterQuery key(@Nullable Object value) {
        return new DeadLetterQuery(errorContains, value, idFrom, idTo, timeColumn, from, to, highestFirst);
    }

    /** Rows with an id from {@code lowest} to {@code highest}, both inclusive; either may be null (no bound). */
    public DeadLetterQuery idBetween(@Nullable Object lowest, @Nullable Object highest) {
        return new DeadLetterQuery(errorContains, key, lowest, highest, timeColumn, from, to, highestFirst);
    }

    /**
     * Rows whose {@code column} is at or after {@code earliest} and before {@code latest}; either may be null (no
     * bound).
     */
    public DeadLetterQuery changedBetween(String column, @Nullable Instant earliest, @Nullable Instant latest) {
        return new DeadLetterQuery(errorContains, key, idFrom, idTo, column, earliest, latest, highestFirst);
    }

    /** Highest id first. */
    public DeadLetterQuery newestFirst() {
        return new DeadLetterQuery(errorContains, key, idFrom, idTo, timeColumn, from, to, true);
    }

    /** Lowest id first (the default). */
    public DeadLetterQuery oldestFirst() {
        return new DeadLetterQuery(errorContains, key, idFrom, idTo, timeColumn, from, to, false);
    }

    /** This query in the other order: a page before a given id is the next page of the reversed query. */
    public DeadLetterQuery reversed() {
        return new DeadLetterQuery(errorContains, key, idFrom, idTo, timeColumn, from, to, !highestFirst);
    }

    /**
     * True when a page needs the bounded window: a criterion that no index serves (the error text, the time range), so
     * that each page looks at {@value DeadLetters#SEARCH_SCAN} dead rows at most.
     */
    public boolean scans() {
        return errorContains != null || from != null || to != null;
    }
}
