package dev.baton;

import java.nio.charset.StandardCharsets;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * A message being delivered from the outbox.
 *
 * @param id the message id (increasing in enqueue order)
 * @param topic its topic
 * @param key its ordering key, or null
 * @param dedupKey its dedup key, or null
 * @param headers its headers
 * @param payload its payload
 * @param attempt which delivery attempt this is, 1 for the first
 */
public record OutboxMessage(
        long id,
        String topic,
        @Nullable String key,
        @Nullable String dedupKey,
        Map<String, String> headers,
        byte[] payload,
        int attempt) {

    /** The payload as UTF-8 text. */
    public String payloadText() {
        return new String(payload, StandardCharsets.UTF_8);
    }

    /**
     * A key that is the same for every delivery attempt of this message, for a sink that deduplicates: the dedup key
     * if the message has one, else {@code outbox:<id>}.
     */
    public String idempotencyKey() {
        return dedupKey != null ? dedupKey : "outbox:" + id;
    }
}
