package dev.baton.console.internal;

import dev.baton.DeadLetterQuery;
import dev.baton.DeadLetters;
import dev.baton.console.ConsoleRequest;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeParseException;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * The dead-letter search of a queue page, as typed: each field bounded and typed before it becomes a {@link
 * DeadLetterQuery} (a field that does not fit is a {@link IllegalArgumentException} whose message is the 400's), and
 * the same fields again for the page's links and the "requeue all that match" form.
 *
 * @param find the error text, or null
 * @param key the key, or null
 * @param idFrom the lowest id as typed, or null
 * @param idTo the highest id as typed, or null
 * @param from the earliest time of death as typed (UTC), or null
 * @param to the latest time of death as typed (UTC), or null
 * @param newest highest id first
 * @param query the query
 * @param empty true when nothing can match (an id was typed, but the queue has no row yet to tell its ids' type)
 */
record DeadFilter(
        @Nullable String find,
        @Nullable String key,
        @Nullable String idFrom,
        @Nullable String idTo,
        @Nullable String from,
        @Nullable String to,
        boolean newest,
        DeadLetterQuery query,
        boolean empty) {
    static final int MAX_KEY = 200;
    private static final Pattern TIME = Pattern.compile("[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}(:[0-9]{2})?");

    /** The fields the filter reads: the page's links and the requeue form carry them. */
    static final String[] FIELDS = {"find", "key", "idfrom", "idto", "from", "to", "order"};

    static DeadFilter parse(QueueAdmin<?> q, ConsoleRequest request) {
        String find = blankless(request.param("find"));
        if (find != null && find.length() > DeadLetters.SEARCH_TEXT) {
            throw new IllegalArgumentException(
                    "The text to look for is longer than " + DeadLetters.SEARCH_TEXT + " characters.");
        }
        String key = blankless(request.param("key"));
        if (key != null && !q.hasKeyColumn()) {
            throw new IllegalArgumentException("This queue has no key column to search by.");
        }
        if (key != null && key.length() > MAX_KEY) {
            throw new IllegalArgumentException("The key is longer than " + MAX_KEY + " characters.");
        }
        String order = request.param("order");
        if (order != null && !order.equals("newest") && !order.equals("oldest")) {
            throw new IllegalArgumentException("Order by \"newest\" or \"oldest\".");
        }
        boolean newest = "newest".equals(order);
        String idFrom = blankless(request.param("idfrom"));
        String idTo = blankless(request.param("idto"));
        boolean empty = false;
        Object lo = null;
        Object hi = null;
        if (idFrom != null || idTo != null) {
            try {
                lo = idFrom == null ? null : q.typedId(idFrom.trim());
                hi = idTo == null ? null : q.typedId(idTo.trim());
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("Not a row id of this queue: " + e.getMessage() + ".");
            }
            empty = (idFrom != null && lo == null) || (idTo != null && hi == null);
        }
        String from = blankless(request.param("from"));
        String to = blankless(request.param("to"));
        Instant fromAt = time(from, "from");
        Instant toAt = time(to, "to");
        if ((from != null || to != null) && q.deadAtColumn() == null) {
            throw new IllegalArgumentException("This queue has no time of death to search by (see deadAtColumn).");
        }
        if (fromAt != null && toAt != null && !fromAt.isBefore(toAt)) {
            throw new IllegalArgumentException("The time range ends before it starts.");
        }
        DeadLetterQuery query =
                DeadLetterQuery.all().errorContains(find).key(key).idBetween(lo, hi);
        if (q.deadAtColumn() != null && (fromAt != null || toAt != null)) {
            query = query.changedBetween(q.deadAtColumn(), fromAt, toAt);
        }
        if (newest) {
            query = query.newestFirst();
        }
        return new DeadFilter(find, key, idFrom, idTo, from, to, newest, query, empty);
    }

    private static @Nullable Instant time(@Nullable String text, String name) {
        if (text == null) {
            return null;
        }
        if (!TIME.matcher(text).matches()) {
            throw new IllegalArgumentException("The time \"" + name + "\" is not of the form 2026-12-03T02:00 (UTC).");
        }
        try {
            return LocalDateTime.parse(text).toInstant(ZoneOffset.UTC);
        } catch (DateTimeParseException e) {
            throw new IllegalArgumentException("The time \"" + name + "\" is no date and time.");
        }
    }

    private static @Nullable String blankless(@Nullable String s) {
        return s == null || s.isBlank() ? null : s;
    }

    /** True when any criterion but the order is given. */
    boolean filters() {
        return find != null || key != null || idFrom != null || idTo != null || from != null || to != null;
    }

    /** The fields as given, for links and hidden form fields (absent ones left out). */
    Map<String, String> fields() {
        Map<String, String> m = new LinkedHashMap<>();
        put(m, "find", find);
        put(m, "key", key);
        put(m, "idfrom", idFrom);
        put(m, "idto", idTo);
        put(m, "from", from);
        put(m, "to", to);
        if (newest) {
            m.put("order", "newest");
        }
        return m;
    }

    private static void put(Map<String, String> m, String k, @Nullable String v) {
        if (v != null) {
            m.put(k, v);
        }
    }

    /** The query string of {@link #fields()}, each starting with {@code &}. */
    String params() {
        StringBuilder b = new StringBuilder();
        fields().forEach((k, v) -> b.append('&').append(k).append('=').append(Pages.url(v)));
        return b.toString();
    }

    /** The criteria in words, for confirmations, results and the audit. */
    String describe() {
        StringBuilder b = new StringBuilder();
        if (find != null) {
            b.append("error contains \"").append(find).append("\"");
        }
        if (key != null) {
            b.append(b.length() == 0 ? "" : ", ").append("key = \"").append(key).append("\"");
        }
        if (idFrom != null || idTo != null) {
            b.append(b.length() == 0 ? "" : ", ")
                    .append("id from ")
                    .append(idFrom == null ? "the lowest" : idFrom)
                    .append(" to ")
                    .append(idTo == null ? "the highest" : idTo);
        }
        if (from != null || to != null) {
            b.append(b.length() == 0 ? "" : ", ")
                    .append("died from ")
                    .append(from == null ? "the start" : from + " UTC")
                    .append(" to ")
                    .append(to == null ? "now" : to + " UTC");
        }
        return b.length() == 0 ? "every dead row" : b.toString();
    }
}
