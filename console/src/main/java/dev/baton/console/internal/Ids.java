package dev.baton.console.internal;

import java.math.BigDecimal;
import java.util.UUID;

/**
 * Row ids in forms and links: a letter for the Java type the driver returned and the value, so that an id read from a
 * page is bound with the type of the column again (PostgreSQL compares no BIGINT with a VARCHAR).
 */
public final class Ids {
    private Ids() {}

    public static String encode(Object id) {
        if (id instanceof Long) {
            return "l" + id;
        }
        if (id instanceof Integer) {
            return "i" + id;
        }
        if (id instanceof UUID) {
            return "u" + id;
        }
        if (id instanceof BigDecimal b) {
            return "d" + b.toPlainString();
        }
        return "s" + id;
    }

    /**
     * The id encoded in {@code text}.
     *
     * @throws IllegalArgumentException if it is not an encoded id
     */
    public static Object decode(String text) {
        if (text == null || text.isEmpty() || text.length() > 400) {
            throw new IllegalArgumentException("no id");
        }
        String v = text.substring(1);
        return switch (text.charAt(0)) {
            case 'l' -> Long.valueOf(v);
            case 'i' -> Integer.valueOf(v);
            case 'u' -> UUID.fromString(v);
            case 'd' -> new BigDecimal(v);
            case 's' -> v;
            default -> throw new IllegalArgumentException("no id");
        };
    }
}
