package dev.baton.internal.tx;

import org.jspecify.annotations.Nullable;

/**
 * How a transaction's work ends its attempt: with a value to commit, or with a value whose transaction is rolled back
 * (it wrote nothing the value needs, e.g. a receipt found in place).
 *
 * @param <T> the value
 */
public record Ending<T>(@Nullable T value, boolean rollBack) {
    /** Commit, then answer {@code value}. */
    public static <T> Ending<T> commit(@Nullable T value) {
        return new Ending<>(value, false);
    }

    /** Roll back, then answer {@code value}. */
    public static <T> Ending<T> rollBack(@Nullable T value) {
        return new Ending<>(value, true);
    }
}
