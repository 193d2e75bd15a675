package dev.baton.examples.spring;

import dev.baton.Condition;
import dev.baton.Inbox;
import dev.baton.Message;
import dev.baton.Outbox;
import dev.baton.ReceiveResult;
import dev.baton.StateTable;
import dev.baton.TransitionResult;
import java.time.Duration;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;

/** The web service side of seed 000: orders, the gateway's callback, and the expiry sweep. */
@Service
public class Payments {
    private final StateTable<PaymentStatus> orders;
    private final Outbox outbox;
    private final Inbox inbox;
    private final JdbcClient jdbc;
    private final Duration paymentWindow;

    Payments(
            StateTable<PaymentStatus> orders,
            Outbox outbox,
            Inbox inbox,
            JdbcClient jdbc,
            @Value("${payments.window:PT15M}") Duration paymentWindow) {
        this.orders = orders;
        this.outbox = outbox;
        this.inbox = inbox;
        this.jdbc = jdbc;
        this.paymentWindow = paymentWindow;
    }

    /** Creates an order: payment PENDING, sync PENDING. */
    @Transactional
    public void create(long orderId, long amountCents) {
        jdbc.sql("INSERT INTO orders (id, amount_cents) VALUES (?, ?)")
                .params(orderId, amountCents)
                .update();
    }

    /**
     * The gateway's success callback, which may come late, out of order, or more than once. One transaction of the
     * application: the notification recorded in the inbox, the guarded transition PENDING → PAID, and, only if this
     * call made it, the ledger entry and the outbox message. Baton's calls join the {@code @Transactional} method
     * without a connection passed in; a rollback takes all of them back.
     */
    // tag::boot-callback[]
    @Transactional
    public CallbackReply recordPayment(long orderId, String gatewayTransactionId, String notificationId) {
        if (inbox.receive("gateway", notificationId) instanceof ReceiveResult.Duplicate) {
            return new CallbackReply(orderId, "ACKNOWLEDGED", "duplicate notification " + notificationId);
        }
        TransitionResult<PaymentStatus> r = orders.transition(orderId, PaymentStatus.PENDING, PaymentStatus.PAID)
                .set("payment_transaction_id", gatewayTransactionId) // unique: one gateway tx, one order
                .setNow("paid_at")
                .apply(); // joins this transaction
        if (r.applied()) { // not for a second callback of the same payment (AlreadyInTarget)
            jdbc.sql("INSERT INTO payment_ledger (order_id, entry_type, amount_cents)"
                            + " SELECT id, 'PAYMENT', amount_cents FROM orders WHERE id = ?")
                    .param(orderId)
                    .update();
            outbox.enqueue(Message.of("payment.paid", "{\"orderId\":" + orderId + "}"));
        }
        return reply(orderId, r);
    }
    // end::boot-callback[]

    /** What to answer the gateway. */
    static CallbackReply reply(long orderId, TransitionResult<PaymentStatus> r) {
        String reply;
        if (r.inTarget()) {
            reply = "ACKNOWLEDGED";
        } else if (r instanceof TransitionResult.Rejected<PaymentStatus>) {
            reply = "REFUND"; // the order expired before the money arrived
        } else if (r instanceof TransitionResult.Conflict<PaymentStatus>) {
            reply = "TRANSACTION_REUSED";
        } else {
            reply = "RETRY_LATER";
        }
        return new CallbackReply(orderId, reply, r.toString());
    }

    /**
     * Expires orders that stayed PENDING longer than the payment window, in batches that skip rows a callback holds
     * locked: safe on every host at once, without a scheduler lock.
     *
     * @return orders expired
     */
    // tag::boot-sweep[]
    @Scheduled(fixedDelayString = "${payments.expiry-sweep-interval:PT1M}")
    public long expireUnpaid() {
        return orders.bulk(PaymentStatus.PENDING, PaymentStatus.EXPIRED)
                .where(Condition.olderThan("created_at", paymentWindow))
                .setNow("closed_at")
                .apply()
                .rows();
    }
    // end::boot-sweep[]
}
