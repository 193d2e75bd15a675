package dev.baton.internal.queue;

import dev.baton.SendDurability;
import java.time.Duration;
import java.util.Objects;

/**
 * The send protocol of a queue with a non-idempotent sink: a row is marked sending before the external call, and a
 * send whose outcome is lost waits in the unknown state for a reconciler. A queue without such a sink has none.
 *
 * @param sending the state a row is in during its send
 * @param unknown the state of a send whose outcome is not known
 * @param timeout the longest a send may take
 * @param durability whether the sending mark must be durable on a standby before the send
 * @param durabilityWait how long the mark waits for a standby
 * @param <S> the enum of states
 */
public record SendProtocol<S extends Enum<S>>(
        S sending, S unknown, Duration timeout, SendDurability durability, Duration durabilityWait) {
    /** Refuses a missing part. */
    public SendProtocol {
        Objects.requireNonNull(sending, "sending");
        Objects.requireNonNull(unknown, "unknown");
        Objects.requireNonNull(timeout, "timeout");
        Objects.requireNonNull(durability, "durability");
        Objects.requireNonNull(durabilityWait, "durabilityWait");
    }
}
