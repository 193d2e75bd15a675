package dev.baton.examples.payment;

import java.io.IOException;
import java.util.Optional;

/**
 * The system the timer job pushes paid orders to (seed 000). It can never update a record it received: the first
 * record for an order is the one it keeps.
 */
public interface ThirdParty {

    /**
     * Creates a record and returns its GUID.
     *
     * @param record what to record
     * @param idempotencyKey a key the third party deduplicates by (a repeat returns the first record's GUID and
     *     creates nothing), or {@code null} when it cannot deduplicate
     * @throws IOException when the call failed; the record may or may not have been created
     */
    String create(Record record, String idempotencyKey) throws IOException;

    /**
     * Looks for the record of an order, for reconciliation.
     *
     * @return its GUID, or empty when the third party has no record of the order
     * @throws IOException when the third party cannot tell now
     */
    Optional<String> findByOrder(long orderId) throws IOException;

    /**
     * One record.
     *
     * @param orderId the order
     * @param paid whether the order is paid, as the sender believed
     * @param paymentTransactionId the gateway's transaction id, or null
     * @param amountCents the amount
     */
    record Record(long orderId, boolean paid, String paymentTransactionId, long amountCents) {}
}
