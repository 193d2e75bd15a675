package dev.baton.examples.spring;

import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The third party of seed 000, simulated in memory: it creates a record once per idempotency key and can never
 * update one. Thread-safe.
 */
public final class ThirdParty {
    private final Map<String, String> guidByKey = new ConcurrentHashMap<>();
    private final AtomicInteger created = new AtomicInteger();

    /**
     * Creates the record of a paid order, or returns the GUID of the record made earlier with the same key.
     *
     * @param orderId the order
     * @param idempotencyKey the claim's stable key
     * @return the record's GUID
     */
    public String create(long orderId, String idempotencyKey) {
        return guidByKey.computeIfAbsent(idempotencyKey, k -> {
            created.incrementAndGet();
            return "tp-" + orderId + "-" + UUID.randomUUID();
        });
    }

    /** Records created so far. */
    public int created() {
        return created.get();
    }
}
