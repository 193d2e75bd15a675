package dev.baton.internal.values;

import dev.baton.InvalidIdentifierException;
import dev.baton.spi.Dialect;

/** Validation and quoting of configured table and column names. The only way a name gets into SQL text. */
public final class Identifiers {
    /** The longest name any supported database accepts; dialects check their own, smaller limits. */
    public static final int MAX_LENGTH = 128;

    private Identifiers() {}

    /** Checks a single identifier without a dialect (at configuration time); returns it. */
    public static String check(String identifier) {
        if (identifier == null) {
            throw new InvalidIdentifierException(null, "must not be null");
        }
        if (identifier.isEmpty()) {
            throw new InvalidIdentifierException(identifier, "must not be empty");
        }
        if (identifier.length() > MAX_LENGTH) {
            throw new InvalidIdentifierException(
                    identifier, "longer than " + MAX_LENGTH + " characters (" + identifier.length() + ")");
        }
        if (!plain(identifier)) {
            throw new InvalidIdentifierException(
                    identifier, "only ASCII letters, digits and '_' are allowed, not starting with a digit");
        }
        return identifier;
    }

    /**
     * {@code [A-Za-z_][A-Za-z0-9_]*}, tested without a regular expression: an outcome's {@code set(column, …)} checks
     * its column on every call, so once per row of a worker's batch.
     */
    private static boolean plain(String identifier) {
        for (int i = 0; i < identifier.length(); i++) {
            char c = identifier.charAt(i);
            boolean letter = c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c == '_';
            if (!letter && (i == 0 || c < '0' || c > '9')) {
                return false;
            }
        }
        return true;
    }

    /** Checks an identifier against the dialect's limit and quotes it. */
    public static String quote(Dialect dialect, String identifier) {
        check(identifier);
        if (identifier.length() > dialect.traits().maxIdentifierLength()) {
            throw new InvalidIdentifierException(
                    identifier,
                    "longer than " + dialect.name() + "'s limit of "
                            + dialect.traits().maxIdentifierLength() + " characters");
        }
        return dialect.sql().quote(identifier);
    }

    /** Checks and quotes a table name that may be qualified by one schema ({@code schema.table}). */
    public static String quoteTable(Dialect dialect, String table) {
        String[] parts = splitTable(table);
        return parts.length == 1 ? quote(dialect, parts[0]) : quote(dialect, parts[0]) + "." + quote(dialect, parts[1]);
    }

    /** Splits and checks {@code table} or {@code schema.table}. */
    public static String[] splitTable(String table) {
        if (table == null) {
            throw new InvalidIdentifierException(null, "table name must not be null");
        }
        int dot = table.indexOf('.');
        if (dot < 0) {
            return new String[] {check(table)};
        }
        if (table.indexOf('.', dot + 1) >= 0) {
            throw new InvalidIdentifierException(table, "at most one '.' (schema.table) is allowed");
        }
        return new String[] {check(table.substring(0, dot)), check(table.substring(dot + 1))};
    }
}
