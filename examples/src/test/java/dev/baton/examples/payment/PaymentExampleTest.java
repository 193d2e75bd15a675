package dev.baton.examples.payment;

import static dev.baton.examples.jooq.Tables.ORDERS;
import static dev.baton.examples.jooq.Tables.PAYMENT_LEDGER;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.baton.ClaimQueue;
import dev.baton.QueueHealth;
import dev.baton.TransitionResult;
import dev.baton.Worker;
import dev.baton.examples.Fixture;
import dev.baton.examples.payment.SimulatedThirdParty.Fault;
import dev.baton.testservers.TestServer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.jooq.Record2;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Seed 000 on one server of each product: the callback moves an order once, the timer job pushes each paid order once.
 */
@ParameterizedClass(name = "{0}")
@MethodSource("dev.baton.examples.Servers#oneOfEach")
class PaymentExampleTest {
    /** The server of this run. */
    @Parameter
    TestServer server;

    @Test
    void duplicateCallbacksRacingEachOtherPayOnceAndCreditOnce() throws Exception {
        try (Fixture f = Fixture.on(server)) {
            Payments payments = new Payments(f.baton, f.dsl, f.table("orders"));
            payments.create(1, 1_500);
            int copies = 8;
            ExecutorService pool = Executors.newFixedThreadPool(copies);
            try {
                CountDownLatch go = new CountDownLatch(1);
                List<Future<TransitionResult<PaymentStatus>>> results = new ArrayList<>();
                for (int i = 0; i < copies; i++) {
                    results.add(pool.submit(() -> {
                        go.await();
                        return payments.recordPayment(1, "gw-1");
                    }));
                }
                go.countDown();
                int applied = 0;
                for (Future<TransitionResult<PaymentStatus>> r : results) {
                    TransitionResult<PaymentStatus> result = r.get();
                    assertEquals(CallbackReply.ACKNOWLEDGED, Payments.reply(result), result.toString());
                    applied += result.applied() ? 1 : 0;
                }
                assertEquals(1, applied, "exactly one copy of the callback moved the order");
            } finally {
                pool.shutdownNow();
            }
            assertEquals(PaymentStatus.PAID, payments.orders().currentState(1L).orElseThrow());
            Record2<Long, String> entry = f.dsl.select(PAYMENT_LEDGER.AMOUNT_CENTS, PAYMENT_LEDGER.ENTRY_TYPE)
                    .from(PAYMENT_LEDGER)
                    .where(PAYMENT_LEDGER.ORDER_ID.eq(1L))
                    .fetchSingle();
            assertEquals(1_500L, entry.value1(), "one ledger entry, with the order's amount");
            assertNotNull(
                    f.dsl.select(ORDERS.PAID_AT).from(ORDERS).fetchSingle().value1());
        }
    }

    @Test
    void aCallbackAfterTheOrderExpiredIsRefundedNotApplied() {
        try (Fixture f = Fixture.on(server)) {
            Payments payments = new Payments(f.baton, f.dsl, f.table("orders"));
            payments.create(1, 100);
            payments.create(2, 200);
            payments.recordPayment(2, "gw-2");
            assertEquals(1, payments.expireUnpaid(Duration.ZERO), "only the PENDING order expires");
            TransitionResult<PaymentStatus> late = payments.recordPayment(1, "gw-1");
            TransitionResult.Rejected<?> rejected = assertInstanceOf(TransitionResult.Rejected.class, late);
            assertEquals(PaymentStatus.EXPIRED, rejected.current());
            assertEquals(CallbackReply.REFUND, Payments.reply(late));
            assertEquals(CallbackReply.RETRY_LATER, Payments.reply(payments.recordPayment(3, "gw-3")), "no such order");
            assertEquals(1, f.dsl.fetchCount(PAYMENT_LEDGER), "no ledger entry for the late payment");
        }
    }

    @Test
    void oneGatewayTransactionCannotPayTwoOrders() {
        try (Fixture f = Fixture.on(server)) {
            Payments payments = new Payments(f.baton, f.dsl, f.table("orders"));
            payments.create(1, 100);
            payments.create(2, 100);
            assertTrue(payments.recordPayment(1, "gw-same").applied());
            TransitionResult<PaymentStatus> second = payments.recordPayment(2, "gw-same");
            assertInstanceOf(TransitionResult.Conflict.class, second);
            assertEquals(CallbackReply.TRANSACTION_REUSED, Payments.reply(second));
            assertEquals(
                    PaymentStatus.PENDING, payments.orders().currentState(2L).orElseThrow());
            assertEquals(1, f.dsl.fetchCount(PAYMENT_LEDGER), "the refused callback's transaction wrote nothing");
        }
    }

    @Test
    void timerJobsOnThreeHostsPushEachPaidOrderOnceThroughFailures() throws Exception {
        try (Fixture f = Fixture.on(server)) {
            Payments payments = new Payments(f.baton, f.dsl, f.table("orders"));
            for (long id = 1; id <= 60; id++) {
                payments.create(id, id * 10);
            }
            SimulatedThirdParty thirdParty = new SimulatedThirdParty(200, 2_000)
                    .faults((record, call) -> call == 1 && record.orderId() % 5 == 0
                            ? (record.orderId() % 10 == 0 ? Fault.LOST_RESPONSE : Fault.LOST_REQUEST)
                            : Fault.NONE);
            ClaimQueue<SyncStatus> queue = OrderSync.queue(f.baton, payments.orders(), OrderSync.Sink.IDEMPOTENT);
            List<Worker> hosts = new ArrayList<>();
            try {
                for (int h = 0; h < 3; h++) {
                    hosts.add(OrderSync.start(f.baton, queue, thirdParty, 4));
                }
                for (long id = 1; id <= 60; id++) {
                    if (id % 4 != 0) { // three in four orders get paid, while the timer jobs run
                        payments.recordPayment(id, "gw-" + id);
                    }
                }
                awaitCompleted(f, queue, 45);
            } finally {
                hosts.forEach(Worker::close);
            }
            Map<Long, List<SimulatedThirdParty.Stored>> byOrder = thirdParty.recordsByOrder();
            for (long id = 1; id <= 60; id++) {
                Record2<Integer, String> row = f.dsl.select(ORDERS.SYNC_STATUS, ORDERS.THIRD_PARTY_GUID)
                        .from(ORDERS)
                        .where(ORDERS.ID.eq(id))
                        .fetchSingle();
                if (id % 4 == 0) {
                    assertNull(byOrder.get(id), "order " + id + " is not paid: never sent");
                    assertEquals(SyncStatus.PENDING.code(), row.value1());
                } else {
                    assertEquals(1, byOrder.get(id).size(), "order " + id + ": one record at the third party");
                    assertTrue(byOrder.get(id).get(0).record().paid());
                    assertEquals(SyncStatus.COMPLETED.code(), row.value1(), "order " + id);
                    assertEquals(byOrder.get(id).get(0).guid(), row.value2());
                }
            }
            // orders 10, 30 and 50 lost their first response: the retry sent the same key and got the same GUID
            assertEquals(3, thirdParty.deduplicated());
        }
    }

    @Test
    void withoutIdempotencyKeysUnknownSendsAreReconciledNeverResentBlindly() throws Exception {
        try (Fixture f = Fixture.on(server)) {
            Payments payments = new Payments(f.baton, f.dsl, f.table("orders"));
            for (long id = 1; id <= 20; id++) {
                payments.create(id, 100);
                payments.recordPayment(id, "gw-" + id);
            }
            // odd orders: the first call times out after the record was created; orders 4, 8, ...: before
            SimulatedThirdParty thirdParty = new SimulatedThirdParty(100, 1_000)
                    .faults((record, call) -> call > 1
                            ? Fault.NONE
                            : record.orderId() % 2 == 1
                                    ? Fault.LOST_RESPONSE
                                    : record.orderId() % 4 == 0 ? Fault.LOST_REQUEST : Fault.NONE);
            ClaimQueue<SyncStatus> queue = OrderSync.queue(f.baton, payments.orders(), OrderSync.Sink.NOT_IDEMPOTENT);
            Worker a = OrderSync.start(f.baton, queue, thirdParty, 2);
            Worker b = OrderSync.start(f.baton, queue, thirdParty, 2);
            try {
                awaitCompleted(f, queue, 20);
            } finally {
                a.close();
                b.close();
            }
            Map<Long, List<SimulatedThirdParty.Stored>> byOrder = thirdParty.recordsByOrder();
            for (long id = 1; id <= 20; id++) {
                assertEquals(1, byOrder.get(id).size(), "order " + id + ": exactly one record, never a second");
                String guid = f.dsl.select(ORDERS.THIRD_PARTY_GUID)
                        .from(ORDERS)
                        .where(ORDERS.ID.eq(id))
                        .fetchSingle()
                        .value1();
                assertEquals(byOrder.get(id).get(0).guid(), guid, "order " + id + " completed with its GUID");
            }
            assertEquals(20, thirdParty.records().size());
        }
    }

    /** Waits until {@code expected} orders are COMPLETED and nothing is claimed or unknown. */
    static void awaitCompleted(Fixture f, ClaimQueue<SyncStatus> queue, int expected) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while (true) {
            int completed = f.dsl.fetchCount(ORDERS, ORDERS.SYNC_STATUS.eq(SyncStatus.COMPLETED.code()));
            QueueHealth h = queue.health();
            if (completed == expected && h.inFlight() == 0 && h.unknown() == 0) {
                return;
            }
            if (System.nanoTime() > deadline) {
                throw new AssertionError(completed + " of " + expected + " orders completed; " + h);
            }
            Thread.sleep(100);
        }
    }
}
