package dev.baton.examples.payment;

import dev.baton.Baton;
import dev.baton.ClaimQueue;
import dev.baton.ClaimQueueBuilder;
import dev.baton.ClaimedRow;
import dev.baton.Condition;
import dev.baton.Outcome;
import dev.baton.RetryPolicy;
import dev.baton.StateTable;
import dev.baton.Worker;
import java.io.IOException;
import java.time.Duration;

/**
 * The timer job of seed 000, on every host: claims PAID orders that have no third-party GUID yet and pushes each to
 * the third party exactly once. Two ways to be safe with a third party that can never update a record:
 *
 * <ul>
 *   <li>{@link Sink#IDEMPOTENT}: the third party deduplicates by a key; the handler sends the claim's stable
 *       {@link ClaimedRow#idempotencyKey()}, so a retry after a crash returns the first record's GUID;
 *   <li>{@link Sink#NOT_IDEMPOTENT}: the third party cannot deduplicate; the worker commits SENDING before each call,
 *       a row whose outcome is uncertain goes to UNKNOWN instead of being sent again, and a reconcile hook asks the
 *       third party whether it has the record.
 * </ul>
 */
public final class OrderSync {
    /** The queue's name; with the order id it makes the idempotency key {@code order-sync:<id>}. */
    public static final String QUEUE = "order-sync";

    /** How the third party copes with a repeated call. */
    public enum Sink {
        /** It deduplicates by an idempotency key. */
        IDEMPOTENT,
        /** It cannot: a repeat creates a second record. */
        NOT_IDEMPOTENT
    }

    private OrderSync() {}

    /** The claim queue over the orders table. */
    // tag::sync-queue[]
    public static ClaimQueue<SyncStatus> queue(Baton baton, StateTable<PaymentStatus> orders, Sink sink) {
        ClaimQueueBuilder<SyncStatus> queue = baton.<SyncStatus>queue(QUEUE)
                .table(orders.table())
                .id("id")
                .claim("sync_status", SyncStatus.MACHINE, SyncStatus.PENDING, SyncStatus.PROCESSING)
                .eligibleWhen(orders.is(PaymentStatus.PAID), Condition.isNull("third_party_guid"))
                .select("amount_cents", "payment_transaction_id")
                .deadState(SyncStatus.FAILED)
                .lease(Duration.ofSeconds(30)) // by the database clock; heartbeats extend it
                .retry(RetryPolicy.exponential(Duration.ofMillis(200), 2.0).maxAttempts(8))
                .ageColumn("paid_at");
        if (sink == Sink.NOT_IDEMPOTENT) {
            queue.nonIdempotentSink(SyncStatus.SENDING, SyncStatus.UNKNOWN);
        }
        return queue.build();
    }
    // end::sync-queue[]

    /**
     * Starts a worker: {@code concurrency} handlers, claiming 20 rows at a time.
     *
     * @return the running worker; {@link Worker#close()} stops it gracefully
     */
    // tag::sync-worker[]
    public static Worker start(Baton baton, ClaimQueue<SyncStatus> queue, ThirdParty thirdParty, int concurrency) {
        boolean idempotent = queue.sendingState() == null;
        Worker.Builder<SyncStatus> worker = baton.worker(queue)
                .batchSize(20)
                .concurrency(concurrency)
                .pollInterval(Duration.ofMillis(50), Duration.ofMillis(500))
                .sweepInterval(Duration.ofSeconds(1)) // reclaim expired leases, reconcile unknown sends
                .handle(row -> push(thirdParty, row, idempotent));
        if (!idempotent) {
            worker.reconcile(Long.class, orderId -> reconcile(thirdParty, orderId));
        }
        return worker.start();
    }
    // end::sync-worker[]

    /** The handler: one call to the third party per claimed row. */
    // tag::sync-handler[]
    static Outcome<SyncStatus> push(ThirdParty thirdParty, ClaimedRow<SyncStatus> row, boolean idempotent)
            throws IOException {
        ThirdParty.Record record = new ThirdParty.Record(
                row.longId(),
                true, // the queue only ever hands out PAID orders
                row.get("payment_transaction_id", String.class),
                row.get("amount_cents", Long.class));
        String guid = thirdParty.create(record, idempotent ? row.idempotencyKey() : null);
        return Outcome.<SyncStatus>complete(SyncStatus.COMPLETED).set("third_party_guid", guid);
    }
    // end::sync-handler[]

    /**
     * The reconcile hook for a non-idempotent third party: an order whose push has an unknown outcome is completed
     * with the GUID the third party has, or sent again if it has none. The worker asks only once the order's quarantine
     * passed (its lease, the queue's send timeout and a margin, by the database clock): a sender paused between its
     * last check and its call has woken up by then, or it is paused longer than that (the residual window the
     * claim-queues guide states; a third party that fences closes it).
     */
    // tag::reconcile[]
    static Outcome<SyncStatus> reconcile(ThirdParty thirdParty, long orderId) throws IOException {
        return thirdParty
                .findByOrder(orderId)
                .map(guid -> Outcome.<SyncStatus>complete(SyncStatus.COMPLETED).set("third_party_guid", guid))
                .orElseGet(Outcome::release); // no record after the quarantine: send it again
    }
    // end::reconcile[]
}
