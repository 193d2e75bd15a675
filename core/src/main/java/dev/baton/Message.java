package dev.baton;

import java.nio.charset.StandardCharsets;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * A message for the {@link Outbox}: a topic, a payload, and optionally a key (messages with one key are delivered in
 * enqueue order), headers, and a deduplication key (a second message with the same dedup key is reported as a
 * duplicate and not stored). Immutable; each method returns a new message.
 *
 * <pre>{@code
 * Message m = Message.of("order.paid", json).key("order-" + id).dedupKey("order-paid-" + id);
 * }</pre>
 *
 * @param topic where the message goes (1..255 characters)
 * @param payload the bytes to deliver
 * @param key the ordering key, or null
 * @param dedupKey the deduplication key, or null
 * @param headers header names and values, in order
 */
public record Message(
        String topic, byte[] payload, @Nullable String key, @Nullable String dedupKey, Map<String, String> headers) {

    /**
     * The most bytes the headers may take once encoded (UTF-8, one {@code name=value} line each, with {@code %},
     * {@code =} and line breaks percent-encoded): 65,535, what MySQL's {@code TEXT} column holds.
     */
    public static final int MAX_HEADER_BYTES = 65_535;

    /**
     * Copies the payload and headers.
     *
     * @throws PayloadTooLargeException if the encoded headers take more than {@link #MAX_HEADER_BYTES}
     */
    public Message {
        Objects.requireNonNull(topic, "topic");
        Objects.requireNonNull(payload, "payload");
        payload = payload.clone();
        headers = Collections.unmodifiableMap(new LinkedHashMap<>(headers));
        if (!headers.isEmpty()) {
            int bytes = Outbox.encodeHeaders(headers).getBytes(StandardCharsets.UTF_8).length;
            if (bytes > MAX_HEADER_BYTES) {
                throw new PayloadTooLargeException("headers of a message on topic " + topic, bytes, MAX_HEADER_BYTES);
            }
        }
    }

    /** A message with a binary payload. */
    public static Message of(String topic, byte[] payload) {
        return new Message(topic, payload, null, null, Map.of());
    }

    /** A message with a text payload, stored as UTF-8. */
    public static Message of(String topic, String payload) {
        return of(topic, Objects.requireNonNull(payload, "payload").getBytes(StandardCharsets.UTF_8));
    }

    /** The same message with an ordering key. */
    public Message key(@Nullable String key) {
        return new Message(topic, payload, key, dedupKey, headers);
    }

    /** The same message with a deduplication key. */
    public Message dedupKey(@Nullable String dedupKey) {
        return new Message(topic, payload, key, dedupKey, headers);
    }

    /**
     * The same message with one more header.
     *
     * @throws PayloadTooLargeException if the encoded headers would take more than {@link #MAX_HEADER_BYTES}
     */
    public Message header(String name, String value) {
        Map<String, String> h = new LinkedHashMap<>(headers);
        h.put(Objects.requireNonNull(name, "name"), Objects.requireNonNull(value, "value"));
        return new Message(topic, payload, key, dedupKey, h);
    }

    /** A copy of the payload. */
    @Override
    public byte[] payload() {
        return payload.clone();
    }

    /** The payload as UTF-8 text. */
    public String payloadText() {
        return new String(payload, StandardCharsets.UTF_8);
    }

    int payloadSize() {
        return payload.length;
    }

    byte[] payloadUnsafe() {
        return payload;
    }

    @Override
    public boolean equals(@Nullable Object o) {
        return o instanceof Message m
                && m.topic.equals(topic)
                && java.util.Arrays.equals(m.payload, payload)
                && Objects.equals(m.key, key)
                && Objects.equals(m.dedupKey, dedupKey)
                && m.headers.equals(headers);
    }

    @Override
    public int hashCode() {
        return Objects.hash(topic, java.util.Arrays.hashCode(payload), key, dedupKey, headers);
    }

    @Override
    public String toString() {
        return "Message[" + topic + (key != null ? " key=" + key : "") + (dedupKey != null ? " dedup=" + dedupKey : "")
                + " " + payload.length + " bytes]";
    }
}
