package dev.baton.bench.outbox;

import dev.baton.bench.Latency;
import dev.baton.bench.Measurement;
import dev.baton.bench.Target;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Locale;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicLong;

/**
 * One run's bookkeeping, shared by both variants: the messages they send, the ids the producers' commits returned,
 * what the sink received (by message id), the count-down of committed deliveries that stops the timer, and the
 * verification after the run. The table is fresh for every run, so the ids are 1..n.
 */
final class Ledger {
    static final String TOPIC = "bench.topic";
    /** Ordering keys {@code k0} … {@code k63}: message i has key {@code "k" + i % 64}. */
    static final int KEYS = 64;
    /** Payload size in bytes. */
    static final int PAYLOAD_BYTES = 100;

    final int messages;
    /** Counted down once per message whose delivery was marked DELIVERED and committed. */
    final CountDownLatch committed;

    private final AtomicIntegerArray enqueued;
    private final AtomicIntegerArray delivered;
    private final AtomicLong unexpected = new AtomicLong();
    private final AtomicLong errors = new AtomicLong();

    Ledger(int messages) {
        this.messages = messages;
        this.committed = new CountDownLatch(messages);
        this.enqueued = new AtomicIntegerArray(messages);
        this.delivered = new AtomicIntegerArray(messages);
    }

    /** The payload of message i: {@value #PAYLOAD_BYTES} bytes of JSON. */
    static byte[] payload(int i) {
        String head = "{\"n\":" + i + ",\"pad\":\"";
        char[] pad = new char[PAYLOAD_BYTES - head.length() - 2];
        Arrays.fill(pad, 'x');
        return (head + new String(pad) + "\"}").getBytes(StandardCharsets.US_ASCII);
    }

    /** The ordering key of message i. */
    static String key(int i) {
        return "k" + i % KEYS;
    }

    /** A producer's commit returned this id. */
    void enqueued(long id) {
        if (id < 1 || id > messages) {
            unexpected.incrementAndGet();
        } else {
            enqueued.incrementAndGet((int) (id - 1));
        }
    }

    /** The sink: records one delivery of message {@code id} (an id outside 1..n or a mangled message is counted). */
    void deliver(long id, String topic, byte[] payload) {
        if (id < 1 || id > messages || payload.length != PAYLOAD_BYTES || !TOPIC.equals(topic)) {
            unexpected.incrementAndGet();
        } else {
            delivered.incrementAndGet((int) (id - 1));
        }
    }

    /** A dispatcher caught an error and carried on (Baton's worker does so by design; the raw loop the same). */
    void error() {
        errors.incrementAndGet();
    }

    /**
     * Verifies the run and returns its measurement: every id enqueued once and delivered exactly once by the sink,
     * nothing unexpected delivered, n rows in the table, all DELIVERED, each claimed once (attempts = 1). The check
     * text also says when the last producer's commit returned ({@code enqueueSeconds} after the start), which tells
     * whether the producers or the dispatchers bounded the run.
     */
    Measurement measure(Target target, double seconds, double enqueueSeconds, boolean finished, String problem)
            throws Exception {
        long notEnqueued = 0;
        long lost = 0;
        long duplicates = 0;
        for (int i = 0; i < messages; i++) {
            if (enqueued.get(i) != 1) {
                notEnqueued++;
            }
            int n = delivered.get(i);
            if (n == 0) {
                lost++;
            } else if (n > 1) {
                duplicates += n - 1;
            }
        }
        long[] db = OutboxTable.verify(target);
        long wrongRows = Math.abs(db[0] - messages);
        long failures =
                notEnqueued + lost + duplicates + unexpected.get() + wrongRows + db[1] + db[2] + (finished ? 0 : 1);
        String errorNote = errors.get() == 0 ? "" : " (" + errors.get() + " dispatcher errors caught and retried)";
        String check = failures == 0
                ? "ok: " + messages + " messages enqueued, delivered once each, all DELIVERED, attempts = 1" + errorNote
                        + String.format(
                                Locale.ROOT, "; last enqueue committed at %.2f s of %.2f s", enqueueSeconds, seconds)
                : "FAILED: not enqueued " + notEnqueued + ", lost " + lost + ", duplicates " + duplicates
                        + ", unexpected " + unexpected.get() + ", rows " + db[0] + " of " + messages
                        + ", not delivered " + db[1] + ", attempts <> 1: " + db[2]
                        + (finished ? "" : ", not finished" + (problem == null ? "" : ": " + problem)) + errorNote;
        return Measurement.throughput(messages, seconds, Latency.Summary.NONE, failures, check);
    }
}
