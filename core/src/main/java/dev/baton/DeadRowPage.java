package dev.baton;

import java.util.List;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * One page of a {@link DeadLetters#search search} of the dead rows: the rows found, where the next page starts, and how
 * many dead rows this page looked at.
 *
 * @param rows the rows found, in the order asked for, at most the page size
 * @param continueAfter the id to give as {@code afterId} for the next page, or null when no dead row is left beyond
 *     this page in that order
 * @param scanned the dead rows this page looked at (at most {@link DeadLetters#SEARCH_SCAN}): with a filter, fewer
 *     rows than a page and a {@code continueAfter} mean the scan stopped at its bound, not that nothing more matches
 */
public record DeadRowPage(List<DeadRow> rows, @Nullable Object continueAfter, int scanned) {
    /** Copies the rows. */
    public DeadRowPage {
        rows = List.copyOf(Objects.requireNonNull(rows, "rows"));
    }
}
