package dev.baton.examples.payment;

import dev.baton.ClaimQueue;
import dev.baton.QueueHealth;
import dev.baton.Worker;
import dev.baton.examples.payment.SimulatedThirdParty.Fault;
import dev.baton.examples.support.ExampleMain;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.jooq.Table;
import org.jooq.impl.DSL;

/**
 * Seed 000 in one run: duplicate and late callbacks, a reused gateway transaction, and the timer job pushing paid
 * orders to a third party that cannot deduplicate, with lost answers reconciled instead of re-sent.
 *
 * <p>{@code java -cp examples/target/baton-demo.jar dev.baton.examples.payment.PaymentExample [--jdbc-url ...]}
 */
public final class PaymentExample {
    private PaymentExample() {}

    /** Runs the example. */
    public static void main(String[] args) {
        ExampleMain.main("Seed 000: payment callbacks and the timer job", args, PaymentExample::run);
    }

    /** The example's body. */
    public static void run(ExampleMain.Session s) throws Exception {
        Payments payments = new Payments(s.baton(), s.dsl(), s.schema().table("orders"));
        for (long id = 1; id <= 9; id++) {
            payments.create(id, 1_000 + id);
        }
        List<CompletableFuture<CallbackReply>> copies = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            copies.add(CompletableFuture.supplyAsync(() -> Payments.reply(payments.recordPayment(1, "gw-1"))));
        }
        s.out()
                .println("  order 1, three copies of one callback at once: "
                        + copies.stream().map(CompletableFuture::join).toList());
        for (long id = 3; id <= 9; id++) {
            payments.recordPayment(id, "gw-" + id);
        }
        s.out().println("  order 2 never paid; expiry sweep: " + payments.expireUnpaid(Duration.ZERO) + " expired");
        CallbackReply late = Payments.reply(payments.recordPayment(2, "gw-2"));
        s.out().println("  order 2, the callback comes after all: " + late);
        payments.create(10, 1_010);
        CallbackReply reused = Payments.reply(payments.recordPayment(10, "gw-3"));
        s.out().println("  order 10 paid with order 3's gateway transaction: " + reused);

        // the third party loses the answer to some first calls, after creating the record (orders 3, 6, 9)
        SimulatedThirdParty thirdParty = new SimulatedThirdParty(500, 2_000)
                .faults((record, call) -> call == 1 && record.orderId() % 3 == 0 ? Fault.LOST_RESPONSE : Fault.NONE);
        ClaimQueue<SyncStatus> queue = OrderSync.queue(s.baton(), payments.orders(), OrderSync.Sink.NOT_IDEMPOTENT);
        Worker hostA = OrderSync.start(s.baton(), queue, thirdParty, 2);
        Worker hostB = OrderSync.start(s.baton(), queue, thirdParty, 2);
        try {
            // Done when all 8 paid orders are COMPLETED and one reading of the queue shows nothing claimed or
            // unknown (two readings could each miss a row moving from in flight to unknown).
            Table<?> orders = DSL.table(s.schema().table("orders"));
            long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
            while (true) {
                int completed = s.dsl()
                        .fetchCount(orders, DSL.field(DSL.name("sync_status")).eq(SyncStatus.COMPLETED.code()));
                QueueHealth health = queue.health();
                if (completed == 8 && health.inFlight() == 0 && health.unknown() == 0) {
                    break;
                }
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException(
                            "the sync did not finish: " + completed + " of 8 orders completed; " + health);
                }
                Thread.sleep(100);
            }
        } finally {
            hostA.close();
            hostB.close();
        }
        s.out()
                .println("  third party: " + thirdParty.records().size() + " records for 8 paid orders, "
                        + thirdParty.calls() + " calls (lost answers were reconciled, never re-sent)");
        s.out().println("  queue: " + queue.health());
    }
}
