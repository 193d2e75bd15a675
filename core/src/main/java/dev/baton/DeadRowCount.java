package dev.baton;

/**
 * How many dead rows match a {@link DeadLetterQuery}, counted by {@link DeadLetters#countMatching} over a bounded
 * number of them.
 *
 * @param matching the rows that match among those looked at
 * @param looked the dead rows looked at: those the indexed part of the query selects (state, key, id range), lowest id
 *     first, up to the bound
 * @param exact true when every such row was looked at, so {@code matching} is the exact number; false when the bound
 *     stopped the count: then at least {@code matching} rows match, among the first {@code looked}
 */
public record DeadRowCount(long matching, long looked, boolean exact) {}
