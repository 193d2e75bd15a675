package dev.baton.examples.parking;

import static dev.baton.examples.jooq.Tables.PARKING_COUPONS;

import dev.baton.examples.support.ExampleMain;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.stream.IntStream;

/**
 * Seed 003 in one run: a family's phones ask for the fee and pay at once; the gateway's callback arrives twice; a
 * payment times out and its coupon comes back.
 *
 * <p>{@code java -cp examples/target/baton-demo.jar dev.baton.examples.parking.ParkingExample [--jdbc-url ...]}
 */
public final class ParkingExample {
    private ParkingExample() {}

    /** Runs the example. */
    public static void main(String[] args) {
        ExampleMain.main("Seed 003: parking bills paid from several phones", args, ParkingExample::run);
    }

    /** The example's body. */
    public static void run(ExampleMain.Session s) throws Exception {
        String inbox = "baton_inbox_" + s.schema().suffix();
        s.baton().ownTables().createInboxTable(inbox);
        try {
            Parking parking = new Parking(
                    s.baton(),
                    s.dsl(),
                    s.schema().table("parking_bills"),
                    s.schema().table("parking_coupons"),
                    inbox);
            s.dsl()
                    .insertInto(PARKING_COUPONS, PARKING_COUPONS.ID, PARKING_COUPONS.PLATE, PARKING_COUPONS.STATUS)
                    .values(7L, "粤B12345", CouponStatus.AVAILABLE.name())
                    .execute();
            List<Long> bills = all(4, () -> parking.openBill("粤B12345", 1_500));
            s.out().println("  four phones ask for the fee of 粤B12345 at once: bills " + bills);
            long bill = bills.get(0);
            s.out().println("  four phones press pay, with coupon 7: " + all(4, () -> parking.startPayment(bill, 7L)));
            s.out()
                    .println("  the gateway notifies twice: "
                            + all(2, () -> parking.onGatewayResult("wx-1", bill, true)));
            s.out()
                    .println("  bill " + bill + " is "
                            + parking.bills().currentState(bill).orElseThrow() + ", coupon 7 is "
                            + parking.coupons().currentState(7L).orElseThrow());

            long next = parking.openBill("粤B12345", 900);
            s.out()
                    .println("  the next visit opens bill " + next + "; coupon 7 is used, coupon 8 is reserved: "
                            + addCouponAndStart(s, parking, next));
            s.out()
                    .println("  fifteen minutes pass: " + parking.expireStalePayments(Duration.ZERO, Duration.ZERO)
                            + " (bills expired + coupons released); coupon 8 is "
                            + parking.coupons().currentState(8L).orElseThrow());
            s.out().println("  the success arrives late: " + parking.onGatewayResult("wx-2", next, true));
        } finally {
            s.dsl().dropTableIfExists(inbox).execute();
        }
    }

    private static Parking.Start addCouponAndStart(ExampleMain.Session s, Parking parking, long bill) {
        s.dsl()
                .insertInto(PARKING_COUPONS, PARKING_COUPONS.ID, PARKING_COUPONS.PLATE, PARKING_COUPONS.STATUS)
                .values(8L, "粤B12345", CouponStatus.AVAILABLE.name())
                .execute();
        return parking.startPayment(bill, 8L);
    }

    private static <T> List<T> all(int n, java.util.function.Supplier<T> call) {
        List<CompletableFuture<T>> futures = IntStream.range(0, n)
                .mapToObj(i -> CompletableFuture.supplyAsync(call))
                .toList();
        return futures.stream().map(CompletableFuture::join).toList();
    }
}
