package dev.baton;

import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * A message in the outbox's dead state, as {@link Outbox#deadMessages(int)} lists it for an operator. Immutable.
 *
 * @param message the message; its {@link OutboxMessage#attempt()} is the number of delivery attempts made
 * @param lastError the reason kept from its last attempt (the sink's exception, the expiry sweep's note), or null
 */
public record DeadMessage(OutboxMessage message, @Nullable String lastError) {
    /** Validates. */
    public DeadMessage {
        Objects.requireNonNull(message, "message");
    }
}
