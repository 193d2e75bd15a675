package dev.baton.examples.demo;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;

/**
 * The gateway's side of seed 000, decided up front from a seed so that both designs face the same events: when each
 * order is created, whether and when the gateway calls back (late, out of order, sometimes twice, sometimes after the
 * order expired), or never.
 *
 * @param orders the orders, by creation time
 * @param paymentWindowMillis how long an order may stay PENDING before it expires
 * @param lastEventMillis when the last callback is due, after the start
 */
record Workload(List<Order> orders, long paymentWindowMillis, long lastEventMillis) {

    /** What the gateway will do about one order. */
    enum Fate {
        /** Paid; the callback comes within the payment window. */
        PAID,
        /** Paid, but the callback comes after the order expired. */
        PAID_LATE,
        /** Never paid: the gateway never calls. */
        NEVER_PAID
    }

    /**
     * One order.
     *
     * @param id the order id
     * @param amountCents its amount
     * @param createAtMillis when it is created, after the start
     * @param fate what the gateway will do
     * @param callbackDelaysMillis when each callback copy comes, after the order was created (empty if never paid)
     */
    record Order(long id, long amountCents, long createAtMillis, Fate fate, List<Long> callbackDelaysMillis) {
        /** The gateway's transaction id for this order's payment. */
        String transactionId() {
            return "gw-" + id;
        }
    }

    /**
     * A workload of {@code count} orders arriving over about {@code count / 400} seconds (2 to 30 s).
     *
     * @param seed the random seed: the same seed gives the same workload
     */
    static Workload generate(int count, long seed) {
        Random random = new Random(seed);
        long arrival = Math.max(2_000, Math.min(30_000, count * 1000L / 400));
        long window = 4_000;
        List<Order> orders = new ArrayList<>(count);
        long last = 0;
        for (int i = 0; i < count; i++) {
            long id = 1_000_001L + i;
            long createAt = arrival * i / Math.max(1, count);
            double dice = random.nextDouble();
            Fate fate = dice < 0.85 ? Fate.PAID : dice < 0.87 ? Fate.PAID_LATE : Fate.NEVER_PAID;
            List<Long> delays = new ArrayList<>();
            if (fate != Fate.NEVER_PAID) {
                long first = fate == Fate.PAID ? 50 + random.nextInt(2_950) : window + 300 + random.nextInt(900);
                delays.add(first);
                double copy = random.nextDouble();
                if (copy < 0.10) {
                    delays.add(first + random.nextInt(3)); // a duplicate delivered at once: the two race
                } else if (copy < 0.20) {
                    delays.add(first + 200 + random.nextInt(1_300)); // a duplicate delivered later
                }
            }
            for (long d : delays) {
                last = Math.max(last, createAt + d);
            }
            orders.add(
                    new Order(id, 100 + random.nextInt(9_900), createAt, fate, Collections.unmodifiableList(delays)));
        }
        return new Workload(Collections.unmodifiableList(orders), window, last);
    }

    /** Orders the gateway pays. */
    long paid() {
        return orders.stream().filter(o -> o.fate() != Fate.NEVER_PAID).count();
    }

    /** Orders whose callback comes after the payment window. */
    long paidLate() {
        return orders.stream().filter(o -> o.fate() == Fate.PAID_LATE).count();
    }

    /** Orders with two callback copies. */
    long duplicated() {
        return orders.stream().filter(o -> o.callbackDelaysMillis().size() > 1).count();
    }

    /** How long orders keep arriving. */
    long arrivalMillis() {
        return orders.isEmpty() ? 0 : orders.get(orders.size() - 1).createAtMillis();
    }
}
