package dev.baton.examples.payment;

import static dev.baton.examples.jooq.Tables.ORDERS;
import static dev.baton.examples.jooq.Tables.PAYMENT_LEDGER;
import static org.jooq.impl.DSL.inline;
import static org.jooq.impl.DSL.select;

import dev.baton.Baton;
import dev.baton.Condition;
import dev.baton.StateTable;
import dev.baton.TransitionResult;
import dev.baton.examples.support.Retry;
import java.time.Duration;
import org.jooq.DSLContext;

/**
 * The web service side of seed 000: orders are created PENDING, the gateway's callback moves them to PAID once, and a
 * sweep expires those that never got one. Thread-safe.
 */
public final class Payments {
    private final Baton baton;
    private final DSLContext dsl;
    private final StateTable<PaymentStatus> orders;

    /**
     * @param baton Baton on the same database as {@code dsl}
     * @param dsl jOOQ on the orders table's database
     * @param ordersTable the orders table's name
     */
    public Payments(Baton baton, DSLContext dsl, String ordersTable) {
        this.baton = baton;
        this.dsl = dsl;
        // tag::bind-orders[]
        this.orders = baton.table(ordersTable).id("id").state("payment_status", PaymentStatus.MACHINE);
        // end::bind-orders[]
    }

    /** The orders table as Baton sees it. */
    public StateTable<PaymentStatus> orders() {
        return orders;
    }

    /** Creates an order: payment PENDING, sync PENDING. */
    public void create(long orderId, long amountCents) {
        dsl.insertInto(ORDERS)
                .set(ORDERS.ID, orderId)
                .set(ORDERS.AMOUNT_CENTS, amountCents)
                .set(ORDERS.PAYMENT_STATUS, PaymentStatus.PENDING.code())
                .set(ORDERS.SYNC_STATUS, SyncStatus.PENDING.code())
                .execute();
    }

    /**
     * The gateway's success callback, which may come late, out of order, or more than once. One transaction: the
     * guarded transition PENDING → PAID and, only if this call made it, the ledger entry.
     *
     * @return what happened; {@link #reply} says what to answer the gateway
     */
    // tag::callback[]
    public TransitionResult<PaymentStatus> recordPayment(long orderId, String gatewayTransactionId) {
        return Retry.transaction(
                baton,
                () -> dsl.transactionResult(tx -> tx.dsl().connectionResult(connection -> {
                    TransitionResult<PaymentStatus> r = orders.transition(
                                    orderId, PaymentStatus.PENDING, PaymentStatus.PAID)
                            .set("payment_transaction_id", gatewayTransactionId) // unique: one gateway tx, one order
                            .setNow("paid_at") // the database clock
                            .apply(connection); // joins jOOQ's transaction: never commits, never retries
                    if (r.applied()) { // not for a duplicate callback (AlreadyInTarget)
                        tx.dsl()
                                .insertInto(
                                        PAYMENT_LEDGER,
                                        PAYMENT_LEDGER.ORDER_ID,
                                        PAYMENT_LEDGER.ENTRY_TYPE,
                                        PAYMENT_LEDGER.AMOUNT_CENTS)
                                .select(select(ORDERS.ID, inline("PAYMENT"), ORDERS.AMOUNT_CENTS)
                                        .from(ORDERS)
                                        .where(ORDERS.ID.eq(orderId)))
                                .execute();
                    }
                    return r;
                }))); // a deadlock aborts the whole transaction: retry all of it
    }
    // end::callback[]

    /** What to answer the gateway. */
    // tag::callback-reply[]
    public static CallbackReply reply(TransitionResult<PaymentStatus> result) {
        if (result.inTarget()) {
            return CallbackReply.ACKNOWLEDGED; // Applied, or AlreadyInTarget: a duplicate of a callback that won
        } else if (result instanceof TransitionResult.Rejected<PaymentStatus> late) {
            return CallbackReply.REFUND; // late.current() is EXPIRED (or FAILED): the money goes back
        } else if (result instanceof TransitionResult.Conflict<PaymentStatus>) {
            return CallbackReply.TRANSACTION_REUSED; // the gateway tx id is already on another order
        }
        return CallbackReply.RETRY_LATER; // NotFound: the order is not there (yet)
    }
    // end::callback-reply[]

    /**
     * Expires orders that stayed PENDING longer than the payment window, in batches that skip rows a callback holds
     * locked (the next sweep gets them, or the callback wins). Safe on every host at once.
     *
     * @return orders expired
     */
    // tag::expiry-sweep[]
    public long expireUnpaid(Duration paymentWindow) {
        return orders.bulk(PaymentStatus.PENDING, PaymentStatus.EXPIRED)
                .where(Condition.olderThan("created_at", paymentWindow))
                .setNow("closed_at")
                .apply()
                .rows();
    }
    // end::expiry-sweep[]
}
