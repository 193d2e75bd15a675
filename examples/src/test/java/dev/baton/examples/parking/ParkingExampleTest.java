package dev.baton.examples.parking;

import static dev.baton.examples.jooq.Tables.PARKING_BILLS;
import static dev.baton.examples.jooq.Tables.PARKING_COUPONS;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.baton.UnknownStateException;
import dev.baton.examples.Fixture;
import dev.baton.testservers.TestDatabase;
import dev.baton.testservers.TestServer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.MethodSource;

/** Seed 003 on each server: one bill per plate, one payment at a time, coupons held and released, callbacks once. */
@ParameterizedClass(name = "{0}")
@MethodSource("dev.baton.examples.Servers#all")
class ParkingExampleTest {
    /** The server of this run. */
    @Parameter
    TestServer server;

    /** A fixture with Baton's inbox table next to the example schema. */
    private static final class Lot implements AutoCloseable {
        final Fixture f;
        final String inbox;
        final Parking parking;

        Lot(Supplier<TestDatabase> server) {
            f = Fixture.on(server);
            inbox = "baton_inbox_" + f.schema.suffix();
            f.baton.ownTables().createInboxTable(inbox);
            parking = new Parking(f.baton, f.dsl, f.table("parking_bills"), f.table("parking_coupons"), inbox);
        }

        void coupon(long id, String plate) {
            f.dsl.insertInto(PARKING_COUPONS)
                    .set(PARKING_COUPONS.ID, id)
                    .set(PARKING_COUPONS.PLATE, plate)
                    .set(PARKING_COUPONS.STATUS, CouponStatus.AVAILABLE.name())
                    .execute();
        }

        BillStatus bill(long id) {
            return parking.bills().currentState(id).orElseThrow();
        }

        CouponStatus coupon(long id) {
            return parking.coupons().currentState(id).orElseThrow();
        }

        @Override
        public void close() {
            f.db.dropTableIfExists(inbox);
            f.close();
        }
    }

    @Test
    void phonesAskingAtOnceGetOneBillAndOnlyOneOfThemPays() throws Exception {
        try (Lot lot = new Lot(server)) {
            lot.coupon(7, "粤B12345");
            List<Long> bills = all(10, () -> lot.parking.openBill("粤B12345", 1_500));
            assertEquals(1, new HashSet<>(bills).size(), "one open bill: " + bills);
            long bill = bills.get(0);
            Map<Parking.Start, Integer> starts = new EnumMap<>(Parking.Start.class);
            for (Parking.Start s : all(10, () -> lot.parking.startPayment(bill, 7L))) {
                starts.merge(s, 1, Integer::sum);
            }
            assertEquals(Map.of(Parking.Start.STARTED, 1, Parking.Start.IN_PROGRESS, 9), starts);
            assertEquals(BillStatus.PAYING, lot.bill(bill));
            assertEquals(CouponStatus.RESERVED, lot.coupon(7));
            assertEquals(bill, lot.f.dsl.fetchValue(PARKING_COUPONS.BILL_ID, PARKING_COUPONS.ID.eq(7L)));
        }
    }

    @Test
    void aRedeliveredCallbackIsDroppedByTheInbox() throws Exception {
        try (Lot lot = new Lot(server)) {
            lot.coupon(7, "A1");
            long bill = lot.parking.openBill("A1", 800);
            assertEquals(Parking.Start.STARTED, lot.parking.startPayment(bill, 7L));
            Map<Parking.Callback, Integer> results = new EnumMap<>(Parking.Callback.class);
            for (Parking.Callback c : all(6, () -> lot.parking.onGatewayResult("notify-1", bill, true))) {
                results.merge(c, 1, Integer::sum);
            }
            assertEquals(Map.of(Parking.Callback.APPLIED, 1, Parking.Callback.DUPLICATE, 5), results);
            assertEquals(BillStatus.PAID, lot.bill(bill));
            assertEquals(CouponStatus.USED, lot.coupon(7));
            assertEquals(
                    Parking.Callback.ALREADY_DONE,
                    lot.parking.onGatewayResult("notify-2", bill, true),
                    "another message with the same news");
            assertNotEquals(bill, lot.parking.openBill("A1", 500), "the next visit gets a new bill");
        }
    }

    @Test
    void aFailedPaymentReleasesItsCouponAndMayBePaidAgain() {
        try (Lot lot = new Lot(server)) {
            lot.coupon(7, "A1");
            long bill = lot.parking.openBill("A1", 800);
            assertEquals(Parking.Start.STARTED, lot.parking.startPayment(bill, 7L));
            assertEquals(Parking.Callback.APPLIED, lot.parking.onGatewayResult("n1", bill, false));
            assertEquals(BillStatus.FAILED, lot.bill(bill));
            assertEquals(CouponStatus.AVAILABLE, lot.coupon(7));
            assertNull(lot.f.dsl.fetchValue(PARKING_BILLS.COUPON_ID, PARKING_BILLS.ID.eq(bill)));
            assertEquals(bill, lot.parking.openBill("A1", 800), "a FAILED bill is still open");
            assertEquals(Parking.Start.STARTED, lot.parking.startPayment(bill, 7L), "FAILED -> PAYING");
            assertEquals(Parking.Callback.APPLIED, lot.parking.onGatewayResult("n2", bill, true));
            assertEquals(BillStatus.PAID, lot.bill(bill));
            assertEquals(CouponStatus.USED, lot.coupon(7));
            assertEquals(Parking.Start.CLOSED, lot.parking.startPayment(bill, null));
        }
    }

    @Test
    void aTimedOutPaymentExpiresReleasesTheCouponAndALateSuccessIsRefunded() {
        try (Lot lot = new Lot(server)) {
            lot.coupon(7, "A1");
            long bill = lot.parking.openBill("A1", 800);
            assertEquals(Parking.Start.STARTED, lot.parking.startPayment(bill, 7L));
            assertEquals(0, lot.parking.expireStalePayments(Duration.ofMinutes(15), Duration.ofMinutes(20)));
            assertEquals(2, lot.parking.expireStalePayments(Duration.ZERO, Duration.ZERO), "one bill, one coupon");
            assertEquals(BillStatus.EXPIRED, lot.bill(bill));
            assertEquals(CouponStatus.AVAILABLE, lot.coupon(7));
            assertEquals(Parking.Callback.REFUND, lot.parking.onGatewayResult("late", bill, true));
            assertEquals(CouponStatus.AVAILABLE, lot.coupon(7), "the late success did not take the coupon");
            long next = lot.parking.openBill("A1", 900);
            assertNotEquals(bill, next);
            assertEquals(Parking.Start.STARTED, lot.parking.startPayment(next, 7L), "the coupon is usable again");
        }
    }

    @Test
    void aTakenCouponRollsTheStartBack() {
        try (Lot lot = new Lot(server)) {
            lot.coupon(7, "A1");
            long first = lot.parking.openBill("A1", 800);
            long second = lot.parking.openBill("B2", 800);
            assertEquals(Parking.Start.STARTED, lot.parking.startPayment(first, 7L));
            assertEquals(Parking.Start.COUPON_UNAVAILABLE, lot.parking.startPayment(second, 7L));
            assertEquals(BillStatus.INIT, lot.bill(second), "the bill's transition was rolled back with it");
            assertEquals(Parking.Start.STARTED, lot.parking.startPayment(second, null));
            assertEquals(true, lot.parking.cancel(first));
            assertEquals(CouponStatus.AVAILABLE, lot.coupon(7), "cancelling released the coupon");
        }
    }

    @Test
    void aPaddedStatusNeverPassesTheGuard() {
        try (Lot lot = new Lot(server)) {
            // MariaDB's default collations compare 'PAYING ' equal to 'PAYING'; Baton's guard compares bytes
            lot.f
                    .dsl
                    .insertInto(PARKING_BILLS)
                    .set(PARKING_BILLS.ID, 99L)
                    .set(PARKING_BILLS.PLATE, "X")
                    .set(PARKING_BILLS.STATUS, "PAYING ")
                    .set(PARKING_BILLS.AMOUNT_CENTS, 1L)
                    .execute();
            UnknownStateException e =
                    assertThrows(UnknownStateException.class, () -> lot.parking.onGatewayResult("n", 99, true));
            assertEquals(
                    "PAYING ", lot.f.dsl.fetchValue(PARKING_BILLS.STATUS, PARKING_BILLS.ID.eq(99L)), e.getMessage());
        }
    }

    /** Runs {@code n} copies of a call at once and returns their results. */
    static <T> List<T> all(int n, Callable<T> call) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(n);
        try {
            CountDownLatch go = new CountDownLatch(1);
            List<Future<T>> futures = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                futures.add(pool.submit(() -> {
                    go.await();
                    return call.call();
                }));
            }
            go.countDown();
            List<T> out = new ArrayList<>();
            Set<Throwable> errors = new HashSet<>();
            for (Future<T> f : futures) {
                out.add(f.get(30, TimeUnit.SECONDS));
            }
            assertEquals(Set.of(), errors);
            return out;
        } finally {
            pool.shutdownNow();
        }
    }
}
