package dev.baton.internal;

import dev.baton.IllegalKeyException;
import java.util.Objects;

/**
 * Validation of key-like text (idempotency keys, scopes, fingerprints, inbox sources and message ids) before it
 * reaches SQL. Leading and trailing whitespace is refused because MySQL, MariaDB and SQL Server compare with trailing
 * spaces ignored, so {@code "k"} and {@code "k "} would be one key there and two on PostgreSQL; HTTP strips such
 * whitespace from header values anyway (RFC 9110 §5.5). Control characters are refused because PostgreSQL cannot
 * store NUL in text; lone surrogates because they have no UTF-8 form.
 */
public final class KeyText {
    /** The widest key column of the library-owned tables, in characters. */
    public static final int COLUMN_LENGTH = 255;

    private KeyText() {}

    /**
     * Checks {@code value}; returns it.
     *
     * @param argument what it is, for messages and the null check
     * @param value the value
     * @param maxLength the most UTF-16 chars allowed (never more than {@link #COLUMN_LENGTH})
     * @throws NullPointerException if value is null
     * @throws IllegalKeyException if it is not acceptable
     */
    public static String check(String argument, String value, int maxLength) {
        Objects.requireNonNull(value, argument);
        if (value.isEmpty()) {
            throw new IllegalKeyException(argument, value, "must not be empty");
        }
        if (value.isBlank()) {
            throw new IllegalKeyException(argument, value, "must not be blank");
        }
        if (value.length() > maxLength) {
            throw new IllegalKeyException(argument, value, "is longer than " + maxLength + " characters");
        }
        if (Character.isWhitespace(value.charAt(0))
                || Character.isSpaceChar(value.charAt(0))
                || Character.isWhitespace(value.charAt(value.length() - 1))
                || Character.isSpaceChar(value.charAt(value.length() - 1))) {
            throw new IllegalKeyException(argument, value, "must not start or end with whitespace");
        }
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            if (Character.isISOControl(c)) {
                throw new IllegalKeyException(argument, value, "must not contain control characters");
            }
            if (Character.isHighSurrogate(c)
                    && i + 1 < value.length()
                    && Character.isLowSurrogate(value.charAt(i + 1))) {
                i++;
            } else if (Character.isSurrogate(c)) {
                throw new IllegalKeyException(argument, value, "contains a lone UTF-16 surrogate");
            }
        }
        return value;
    }
}
