package dev.baton.console.internal;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.UUID;
import java.util.regex.Pattern;

/**
 * Row ids in forms and links: a letter for the Java type the driver returned and the value, so that an id read from a
 * page is bound with the type of the column again (PostgreSQL compares no BIGINT with a VARCHAR).
 *
 * <p>Decoding is bounded: at most {@value #MAX} characters in, a value of the tagged type or an {@link
 * IllegalArgumentException}, and never a value whose text is longer than what came in ({@code new BigDecimal("1e999999999")}
 * is twelve characters whose plain text is a billion: decimals are digits and a point only).
 */
public final class Ids {
    /** The longest encoded id accepted, and the longest one written (longer ids are shown but not actionable). */
    public static final int MAX = 400;

    private static final Pattern INTEGER = Pattern.compile("-?[0-9]{1,40}");
    private static final Pattern DECIMAL = Pattern.compile("-?[0-9]{1,200}(\\.[0-9]{1,200})?");
    private static final Pattern UUID_TEXT =
            Pattern.compile("[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}");

    private Ids() {}

    /** The type letter of {@code id}: {@code l i n d u}, or {@code s} for a string and any other type. */
    public static char tag(Object id) {
        if (id instanceof Long) {
            return 'l';
        }
        if (id instanceof Integer) {
            return 'i';
        }
        if (id instanceof BigInteger) {
            return 'n';
        }
        if (id instanceof BigDecimal) {
            return 'd';
        }
        if (id instanceof UUID) {
            return 'u';
        }
        return 's';
    }

    /**
     * The encoded id, or null when it does not fit in {@value #MAX} characters (a decimal with a huge exponent, a
     * string id longer than the page may send back): such a row is shown, without an action.
     */
    public static String encode(Object id) {
        String value;
        if (id instanceof BigDecimal b) {
            // the digits of the plain text, computed before it is written: precision plus leading or trailing zeros
            long plain = (long) b.precision() + Math.abs((long) b.scale());
            if (plain > MAX) {
                return null;
            }
            value = b.toPlainString();
        } else {
            value = String.valueOf(id);
        }
        if (value.length() + 1 > MAX) {
            return null;
        }
        return tag(id) + value;
    }

    /**
     * The id encoded in {@code text}.
     *
     * @throws IllegalArgumentException if it is not an encoded id (saying why, without repeating the text)
     */
    public static Object decode(String text) {
        if (text == null || text.isEmpty()) {
            throw new IllegalArgumentException("no id");
        }
        if (text.length() > MAX) {
            throw new IllegalArgumentException(
                    "an id is at most " + MAX + " characters, this one has " + text.length());
        }
        String v = text.substring(1);
        char tag = text.charAt(0);
        switch (tag) {
            case 'l', 'i', 'n' -> {
                if (!INTEGER.matcher(v).matches()) {
                    throw new IllegalArgumentException("not an integer id");
                }
                BigInteger n = new BigInteger(v);
                if (tag == 'l') {
                    if (n.bitLength() > 63) {
                        throw new IllegalArgumentException("out of range for a BIGINT id");
                    }
                    return n.longValue();
                }
                if (tag == 'i') {
                    if (n.bitLength() > 31) {
                        throw new IllegalArgumentException("out of range for an INT id");
                    }
                    return n.intValue();
                }
                return n;
            }
            case 'd' -> {
                if (!DECIMAL.matcher(v).matches()) {
                    throw new IllegalArgumentException("not a decimal id (digits and a point, no exponent)");
                }
                return new BigDecimal(v);
            }
            case 'u' -> {
                if (!UUID_TEXT.matcher(v).matches()) {
                    throw new IllegalArgumentException("not a UUID id");
                }
                return UUID.fromString(v);
            }
            case 's' -> {
                return v;
            }
            default -> throw new IllegalArgumentException("not an id of the console");
        }
    }
}
