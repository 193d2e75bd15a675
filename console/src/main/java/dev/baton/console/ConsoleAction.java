package dev.baton.console;

import java.time.Instant;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * One action an operator took through the console, as the audit log records it (also written to the SLF4J logger
 * {@value BatonConsole#AUDIT_LOGGER} at INFO).
 *
 * @param at when the action ran (this JVM's clock)
 * @param principal the user's name from the {@link ConsoleAuthenticator}
 * @param action what was done: {@code requeue}, {@code requeue-all}, {@code resolve}, {@code pause}, {@code resume}
 * @param queue the queue's name
 * @param target the row id or the bound, or null
 * @param evidence the text the operator typed (resolve), or null
 * @param result the outcome, for example {@code Applied} or {@code 12 rows}
 */
public record ConsoleAction(
        Instant at,
        String principal,
        String action,
        String queue,
        @Nullable String target,
        @Nullable String evidence,
        String result) {
    /** Checks for nulls. */
    public ConsoleAction {
        Objects.requireNonNull(at, "at");
        Objects.requireNonNull(principal, "principal");
        Objects.requireNonNull(action, "action");
        Objects.requireNonNull(queue, "queue");
        Objects.requireNonNull(result, "result");
    }
}
