package dev.baton.internal.values;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.Map;
import java.util.Objects;
import java.util.UUID;

/**
 * Reads a value as the driver returned it ({@code ResultSet.getObject}) as the type the caller asks for, without loss:
 * an integral number as any integral type it fits in (drivers differ: an {@code INT} id is an {@code Integer} on one and
 * a {@code Long} on another, a {@code NUMERIC(19)} a {@code BigDecimal}), a UUID stored as text as a {@link UUID}, and
 * otherwise the value itself when it already has the type. Anything else, and a number that does not fit, is refused.
 */
public final class TypedValues {
    private static final Map<Class<?>, Class<?>> BOXES = Map.of(
            long.class, Long.class,
            int.class, Integer.class,
            short.class, Short.class,
            byte.class, Byte.class,
            boolean.class, Boolean.class,
            double.class, Double.class,
            float.class, Float.class);

    private TypedValues() {}

    /**
     * {@code value} as {@code type}; null stays null.
     *
     * @param what names the value in the error (e.g. {@code "id of queue 'order-sync'"})
     * @throws ClassCastException if the value is not of that type and does not convert to it without loss
     */
    @SuppressWarnings("unchecked") // the box of a primitive class is the class the caller's T stands for
    public static <T> T as(Object value, Class<T> type, String what) {
        Objects.requireNonNull(type, "type");
        Class<T> boxed = (Class<T>) BOXES.getOrDefault(type, type);
        if (value == null || boxed.isInstance(value)) {
            return boxed.cast(value);
        }
        Object converted = convert(value, boxed);
        if (converted == null) {
            throw new ClassCastException(
                    what + " is " + value.getClass().getName() + " " + value + ", not readable as " + type.getName());
        }
        return boxed.cast(converted);
    }

    private static Object convert(Object value, Class<?> type) {
        if (value instanceof Number n && isIntegral(n)) {
            BigInteger exact = n instanceof BigDecimal d
                    ? exactInteger(d)
                    : n instanceof BigInteger b ? b : BigInteger.valueOf(n.longValue());
            if (exact == null) {
                return null;
            }
            try {
                if (type == Long.class) {
                    return exact.longValueExact();
                } else if (type == Integer.class) {
                    return exact.intValueExact();
                } else if (type == Short.class) {
                    return exact.shortValueExact();
                } else if (type == Byte.class) {
                    return exact.byteValueExact();
                } else if (type == BigInteger.class) {
                    return exact;
                } else if (type == BigDecimal.class) {
                    return new BigDecimal(exact);
                }
            } catch (ArithmeticException tooLarge) {
                return null;
            }
            return null;
        }
        if (value instanceof String s && type == UUID.class) {
            return canonicalUuid(s);
        }
        if (value instanceof UUID u && type == String.class) {
            return u.toString();
        }
        return null;
    }

    /**
     * The UUID written in {@code s} in its canonical 36-character form (any case), or null. {@link UUID#fromString} is
     * lenient: it reads {@code 1-2-3-4-5} and a truncated {@code …-42661417400} as UUIDs that name no row.
     */
    private static UUID canonicalUuid(String s) {
        if (s.length() != 36) {
            return null;
        }
        try {
            UUID u = UUID.fromString(s);
            return u.toString().equalsIgnoreCase(s) ? u : null;
        } catch (IllegalArgumentException notUuid) {
            return null;
        }
    }

    private static boolean isIntegral(Number n) {
        return n instanceof Long
                || n instanceof Integer
                || n instanceof Short
                || n instanceof Byte
                || n instanceof BigInteger
                || n instanceof BigDecimal;
    }

    /** The integer a decimal holds exactly ({@code 12.00} is 12), or null ({@code 12.5}). */
    private static BigInteger exactInteger(BigDecimal d) {
        try {
            return d.toBigIntegerExact();
        } catch (ArithmeticException fraction) {
            return null;
        }
    }
}
