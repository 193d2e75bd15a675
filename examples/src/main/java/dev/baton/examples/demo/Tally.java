package dev.baton.examples.demo;

import dev.baton.examples.payment.SimulatedThirdParty;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * What one design did, as seen from outside it: what its callback handler told the gateway, which copies of a
 * callback took the "apply" branch (whose side effects, a ledger credit or a receipt e-mail, then ran), and the
 * third party it pushed to. Thread-safe.
 */
final class Tally {
    final String design;
    final SimulatedThirdParty thirdParty;
    final Map<Long, Long> acknowledged = new ConcurrentHashMap<>(); // order id -> first acknowledgement (nanoTime)
    final java.util.Set<Long> refunded = ConcurrentHashMap.newKeySet();
    final Map<Long, AtomicInteger> applied = new ConcurrentHashMap<>();
    final AtomicLong callbacks = new AtomicLong();
    final AtomicLong callbackErrors = new AtomicLong();
    final AtomicInteger pending = new AtomicInteger(); // callback deliveries not yet answered for good
    final List<Long> callbackMicros = java.util.Collections.synchronizedList(new java.util.ArrayList<>());
    volatile long settledAtNanos;

    Tally(String design, SimulatedThirdParty thirdParty) {
        this.design = design;
        this.thirdParty = thirdParty;
    }

    void applied(long orderId) {
        applied.computeIfAbsent(orderId, k -> new AtomicInteger()).incrementAndGet();
    }

    void acknowledged(long orderId) {
        acknowledged.putIfAbsent(orderId, System.nanoTime());
    }

    /** A percentile of the callback handler's latency, in milliseconds. */
    double callbackMillis(double percentile) {
        List<Long> copy;
        synchronized (callbackMicros) {
            copy = new java.util.ArrayList<>(callbackMicros);
        }
        return percentile(copy, percentile) / 1000.0;
    }

    /**
     * A percentile of the time from a payment's acknowledgement to the paid record at the third party, in
     * milliseconds; -1 if no paid order was pushed after its payment.
     */
    double pushLagMillis(double percentile) {
        List<Long> lags = new java.util.ArrayList<>();
        for (Map.Entry<Long, List<SimulatedThirdParty.Stored>> e :
                thirdParty.recordsByOrder().entrySet()) {
            Long ack = acknowledged.get(e.getKey());
            if (ack == null) {
                continue;
            }
            e.getValue().stream()
                    .filter(s -> s.record().paid())
                    .findFirst()
                    .ifPresent(s -> lags.add((s.createdNanos() - ack) / 1000));
        }
        return lags.isEmpty() ? -1 : percentile(lags, percentile) / 1000.0;
    }

    private static double percentile(List<Long> values, double p) {
        if (values.isEmpty()) {
            return 0;
        }
        java.util.Collections.sort(values);
        int i = (int) Math.min(values.size() - 1, Math.max(0, Math.ceil(p / 100.0 * values.size()) - 1));
        return values.get(i);
    }

    /**
     * The defects, from the final state of the design's orders.
     *
     * @param finalState per order id: {@code paid} (the database says paid) and {@code settled} (the design is done
     *     with it: pushed, or expired)
     */
    Defects defects(Map<Long, Row> finalState) {
        Map<Long, List<SimulatedThirdParty.Stored>> records = thirdParty.recordsByOrder();
        records.keySet().retainAll(finalState.keySet());
        long premature = 0;
        long duplicates = 0;
        for (Map.Entry<Long, List<SimulatedThirdParty.Stored>> e : records.entrySet()) {
            duplicates += e.getValue().size() - 1;
            if (acknowledged.containsKey(e.getKey())
                    && e.getValue().stream().anyMatch(s -> !s.record().paid())) {
                premature++;
            }
        }
        long lost = 0;
        long leftBehind = 0;
        for (Map.Entry<Long, Row> e : finalState.entrySet()) {
            long id = e.getKey();
            boolean paidAtThirdParty = records.getOrDefault(id, List.of()).stream()
                    .anyMatch(s -> s.record().paid());
            if (acknowledged.containsKey(id) && !e.getValue().paid()) {
                lost++;
            }
            if ((acknowledged.containsKey(id) && !paidAtThirdParty)
                    || !e.getValue().settled()) {
                leftBehind++;
            }
        }
        long twice = 0;
        for (AtomicInteger n : applied.values()) {
            twice += Math.max(0, n.get() - 1);
        }
        return new Defects(premature, duplicates, lost, twice, leftBehind);
    }

    /**
     * One order's final state in a design.
     *
     * @param paid the database says it is paid
     * @param settled the design is done with it
     */
    record Row(boolean paid, boolean settled) {}

    /**
     * The defects of one design.
     *
     * @param premature paid orders the third party got an "unpaid" record for (it can never fix it)
     * @param duplicates records beyond the first for an order
     * @param lostUpdates paid orders (the gateway was told so) that the database shows unpaid at the end
     * @param appliedTwice callback copies beyond the first that ran the "payment received" side effects
     * @param leftBehind paid orders without a paid record at the third party, and orders never settled
     */
    record Defects(long premature, long duplicates, long lostUpdates, long appliedTwice, long leftBehind) {
        long total() {
            return premature + duplicates + lostUpdates + appliedTwice + leftBehind;
        }
    }
}
