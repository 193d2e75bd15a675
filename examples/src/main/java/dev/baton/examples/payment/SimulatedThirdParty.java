package dev.baton.examples.payment;

import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;

/**
 * An in-memory third party for examples, tests and the demo: it keeps every record it creates, never updates one,
 * deduplicates by idempotency key when given one, answers after a random latency, and fails calls as a
 * {@link FaultPlan} says. Thread-safe.
 */
public final class SimulatedThirdParty implements ThirdParty {

    /** What goes wrong with one call. */
    public enum Fault {
        /** Nothing. */
        NONE,
        /** The call fails before the third party sees it: nothing is created. */
        LOST_REQUEST,
        /** The third party creates the record, then the answer is lost: the caller sees a timeout. */
        LOST_RESPONSE
    }

    /** Decides the fault of each call. */
    @FunctionalInterface
    public interface FaultPlan {
        /**
         * The fault of a call.
         *
         * @param record what is being sent
         * @param call 1 for the first call about this order, 2 for the second, ...
         */
        Fault fault(Record record, int call);
    }

    /**
     * A record the third party holds.
     *
     * @param guid its GUID
     * @param record what was sent
     * @param idempotencyKey the key it came with, or null
     * @param createdNanos when it was created ({@link System#nanoTime()})
     */
    public record Stored(String guid, Record record, String idempotencyKey, long createdNanos) {}

    private final long minLatencyMicros;
    private final long maxLatencyMicros;
    private final List<Stored> records = new ArrayList<>();
    private final Map<String, String> byKey = new HashMap<>();
    private final Map<Long, String> byOrder = new HashMap<>();
    private final Map<Long, Integer> calls = new HashMap<>();
    private final AtomicLong callCount = new AtomicLong();
    private final AtomicLong deduplicated = new AtomicLong();
    private volatile FaultPlan faults = (record, call) -> Fault.NONE;

    /** A third party that answers after {@code minMicros} to {@code maxMicros} microseconds. */
    public SimulatedThirdParty(long minMicros, long maxMicros) {
        if (minMicros < 0 || maxMicros < minMicros) {
            throw new IllegalArgumentException("latency must be 0 <= min <= max, was " + minMicros + ".." + maxMicros);
        }
        this.minLatencyMicros = minMicros;
        this.maxLatencyMicros = maxMicros;
    }

    /** Sets the fault plan (default: no faults). */
    public SimulatedThirdParty faults(FaultPlan plan) {
        this.faults = plan;
        return this;
    }

    @Override
    public String create(Record record, String idempotencyKey) throws IOException {
        callCount.incrementAndGet();
        pause();
        int call;
        synchronized (this) {
            call = calls.merge(record.orderId(), 1, Integer::sum);
        }
        Fault fault = faults.fault(record, call);
        if (fault == Fault.LOST_REQUEST) {
            throw new IOException("connect timed out (order " + record.orderId() + ", nothing created)");
        }
        String guid;
        synchronized (this) {
            String known = idempotencyKey == null ? null : byKey.get(idempotencyKey);
            if (known != null) {
                deduplicated.incrementAndGet();
                guid = known;
            } else {
                guid = UUID.randomUUID().toString();
                records.add(new Stored(guid, record, idempotencyKey, System.nanoTime()));
                byOrder.putIfAbsent(record.orderId(), guid);
                if (idempotencyKey != null) {
                    byKey.put(idempotencyKey, guid);
                }
            }
        }
        if (fault == Fault.LOST_RESPONSE) {
            throw new IOException("read timed out (order " + record.orderId() + ", the record was created)");
        }
        return guid;
    }

    @Override
    public synchronized Optional<String> findByOrder(long orderId) {
        return Optional.ofNullable(byOrder.get(orderId));
    }

    /** Every record created, in order. */
    public synchronized List<Stored> records() {
        return new ArrayList<>(records);
    }

    /** Records per order id. */
    public synchronized Map<Long, List<Stored>> recordsByOrder() {
        Map<Long, List<Stored>> out = new HashMap<>();
        for (Stored s : records) {
            out.computeIfAbsent(s.record().orderId(), k -> new ArrayList<>()).add(s);
        }
        return out;
    }

    /** Calls received, faulty ones included. */
    public long calls() {
        return callCount.get();
    }

    /** Calls answered with an earlier record's GUID because their idempotency key was known. */
    public long deduplicated() {
        return deduplicated.get();
    }

    private void pause() throws IOException {
        long micros = maxLatencyMicros == minLatencyMicros
                ? minLatencyMicros
                : ThreadLocalRandom.current().nextLong(minLatencyMicros, maxLatencyMicros + 1);
        if (micros == 0) {
            return;
        }
        try {
            Thread.sleep(micros / 1000, (int) (micros % 1000) * 1000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted", e);
        }
    }
}
