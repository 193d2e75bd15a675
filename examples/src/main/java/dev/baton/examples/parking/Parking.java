package dev.baton.examples.parking;

import static dev.baton.examples.jooq.Tables.PARKING_BILLS;
import static dev.baton.examples.jooq.Tables.PARKING_COUPONS;

import dev.baton.Baton;
import dev.baton.Condition;
import dev.baton.Inbox;
import dev.baton.StateTable;
import dev.baton.TransitionResult;
import java.sql.Connection;
import java.time.Duration;
import java.util.EnumSet;
import org.jooq.DSLContext;
import org.jooq.exception.IntegrityConstraintViolationException;

/**
 * Seed 003: a parking lot's bills, paid from several phones at once. No distributed locks: the database decides.
 *
 * <ul>
 *   <li>one open bill per plate: insert-if-absent under a unique key on {@code open_plate}, which holds the plate
 *       while the bill is open and is cleared (in the same guarded statement) when it closes;
 *   <li>INIT or FAILED → PAYING by one phone only; PAYING → PAID, FAILED, CANCELED or EXPIRED once;
 *   <li>a coupon is RESERVED in the same transaction that starts the payment, USED when it succeeds, and AVAILABLE
 *       again when it fails, is cancelled, or times out;
 *   <li>the gateway's result callbacks go through the inbox: a redelivered message is dropped.
 * </ul>
 *
 * Thread-safe.
 */
public final class Parking {
    /** The inbox source of the payment gateway's callbacks. */
    public static final String GATEWAY = "wechat-pay";

    private final DSLContext dsl;
    private final StateTable<BillStatus> bills;
    private final StateTable<CouponStatus> coupons;
    private final Inbox inbox;

    /** What starting a payment did. */
    public enum Start {
        /** This phone pays now; the coupon, if any, is reserved. */
        STARTED,
        /** Another phone is paying this bill right now. */
        IN_PROGRESS,
        /** The bill is closed (paid, cancelled or expired): ask for the fee again. */
        CLOSED,
        /** The coupon is taken (reserved by another bill, or used): nothing was started. */
        COUPON_UNAVAILABLE,
        /** No such bill. */
        NOT_FOUND
    }

    /** What a gateway callback did. */
    public enum Callback {
        /** Applied: the bill is PAID (coupon used) or FAILED (coupon released). */
        APPLIED,
        /** The same message was received before: dropped. */
        DUPLICATE,
        /** The bill had already reached that result (another message said the same). */
        ALREADY_DONE,
        /** The bill was closed before the success came (expired or cancelled): refund the payment. */
        REFUND,
        /** No such bill. */
        NOT_FOUND
    }

    /**
     * @param baton Baton on the database
     * @param dsl jOOQ on the database
     * @param billsTable the bills table
     * @param couponsTable the coupons table
     * @param inboxTable Baton's inbox table ({@code baton.ownTables().createInboxTable(...)})
     */
    public Parking(Baton baton, DSLContext dsl, String billsTable, String couponsTable, String inboxTable) {
        this.dsl = dsl;
        this.bills = baton.table(billsTable).id("id").state("status", BillStatus.MACHINE);
        this.coupons = baton.table(couponsTable).id("id").state("status", CouponStatus.MACHINE);
        this.inbox = baton.inbox(inboxTable);
    }

    /** The bills as Baton sees them. */
    public StateTable<BillStatus> bills() {
        return bills;
    }

    /** The coupons as Baton sees them. */
    public StateTable<CouponStatus> coupons() {
        return coupons;
    }

    /**
     * The open bill of a plate, created if there is none: every phone that asks at the same time gets the same bill.
     *
     * @return the bill id
     */
    // tag::open-bill[]
    public long openBill(String plate, long amountCents) {
        for (int attempt = 0; attempt < 5; attempt++) {
            try {
                return dsl.insertInto(PARKING_BILLS)
                        .set(PARKING_BILLS.PLATE, plate)
                        .set(PARKING_BILLS.OPEN_PLATE, plate) // unique: one open bill per plate
                        .set(PARKING_BILLS.STATUS, BillStatus.INIT.name())
                        .set(PARKING_BILLS.AMOUNT_CENTS, amountCents)
                        .returningResult(PARKING_BILLS.ID)
                        .fetchSingle()
                        .value1();
            } catch (IntegrityConstraintViolationException taken) {
                Long open = dsl.select(PARKING_BILLS.ID)
                        .from(PARKING_BILLS)
                        .where(PARKING_BILLS.OPEN_PLATE.eq(plate))
                        .fetchOne(PARKING_BILLS.ID);
                if (open != null) {
                    return open; // another phone created it first
                }
                // it was closed in between: try again
            }
        }
        throw new IllegalStateException("plate " + plate + " keeps opening and closing bills");
    }
    // end::open-bill[]

    /**
     * Starts paying a bill, reserving a coupon if one is given; one transaction, so the coupon is never reserved for
     * a payment that did not start.
     */
    // tag::start-payment[]
    public Start startPayment(long billId, Long couponId) {
        try {
            return dsl.transactionResult(tx -> tx.dsl().connectionResult(c -> {
                TransitionResult<BillStatus> bill = bills.transition(
                                billId, EnumSet.of(BillStatus.INIT, BillStatus.FAILED), BillStatus.PAYING)
                        .setNow("paying_since")
                        .set("coupon_id", couponId)
                        .apply(c);
                if (bill instanceof TransitionResult.NotFound<BillStatus>) {
                    return Start.NOT_FOUND;
                } else if (!bill.applied()) {
                    return bill.inTarget() ? Start.IN_PROGRESS : Start.CLOSED; // PAYING, or PAID/CANCELED/EXPIRED
                }
                if (couponId != null) {
                    TransitionResult<CouponStatus> coupon = coupons.transition(
                                    couponId, CouponStatus.AVAILABLE, CouponStatus.RESERVED)
                            .set("bill_id", billId)
                            .setNow("reserved_at")
                            .apply(c);
                    if (!coupon.applied()) {
                        throw new CouponTaken(); // rolls the bill back to INIT or FAILED
                    }
                }
                return Start.STARTED;
            }));
        } catch (CouponTaken e) {
            return Start.COUPON_UNAVAILABLE;
        }
    }
    // end::start-payment[]

    /**
     * The gateway's result, which it may deliver more than once (each delivery with the same message id).
     *
     * @param messageId the gateway's notification id
     * @param success whether the payment succeeded
     */
    // tag::gateway-callback[]
    public Callback onGatewayResult(String messageId, long billId, boolean success) {
        return dsl.transactionResult(tx -> tx.dsl().connectionResult(c -> {
            if (!inbox.receive(c, GATEWAY, messageId).first()) {
                return Callback.DUPLICATE; // recorded in this same transaction by an earlier delivery
            }
            TransitionResult<BillStatus> bill = success
                    ? bills.transition(billId, BillStatus.PAYING, BillStatus.PAID)
                            .setNow("closed_at")
                            .set("open_plate", null) // closed: the plate may open a new bill
                            .apply(c)
                    : bills.transition(billId, BillStatus.PAYING, BillStatus.FAILED)
                            .set("coupon_id", null)
                            .apply(c);
            if (bill instanceof TransitionResult.NotFound<BillStatus>) {
                return Callback.NOT_FOUND;
            } else if (!bill.applied()) {
                return bill.inTarget() || !success ? Callback.ALREADY_DONE : Callback.REFUND;
            }
            Long couponId = tx.dsl() // read after the update: the row is ours until commit
                    .select(PARKING_BILLS.COUPON_ID)
                    .from(PARKING_BILLS)
                    .where(PARKING_BILLS.ID.eq(billId))
                    .fetchOne(PARKING_BILLS.COUPON_ID);
            if (success && couponId != null) {
                coupons.transition(couponId, CouponStatus.RESERVED, CouponStatus.USED)
                        .setNow("used_at")
                        .apply(c);
            } else if (!success) {
                releaseCouponOf(tx.dsl(), c, billId);
            }
            return Callback.APPLIED;
        }));
    }
    // end::gateway-callback[]

    /** The user cancels a payment in progress; its coupon is released. */
    public boolean cancel(long billId) {
        return dsl.transactionResult(tx -> tx.dsl().connectionResult(c -> {
            boolean canceled = bills.transition(billId, BillStatus.PAYING, BillStatus.CANCELED)
                    .setNow("closed_at")
                    .set("open_plate", null)
                    .apply(c)
                    .applied();
            if (canceled) {
                releaseCouponOf(tx.dsl(), c, billId);
            }
            return canceled;
        }));
    }

    /**
     * The timeout sweep: payments running longer than {@code paymentTimeout} expire (closing their bills), and
     * coupons reserved longer than {@code couponHold} are released. The seed holds coupons a little longer than the
     * payment timeout (20 against 15 minutes), so that a success arriving just before the timeout still finds its
     * coupon.
     *
     * @return bills expired plus coupons released
     */
    // tag::timeouts[]
    public long expireStalePayments(Duration paymentTimeout, Duration couponHold) {
        long expired = bills.bulk(BillStatus.PAYING, BillStatus.EXPIRED)
                .where(Condition.olderThan("paying_since", paymentTimeout))
                .setNow("closed_at")
                .set("open_plate", null)
                .apply()
                .rows();
        long released = coupons.bulk(CouponStatus.RESERVED, CouponStatus.AVAILABLE)
                .where(Condition.olderThan("reserved_at", couponHold))
                .set("bill_id", null)
                .apply()
                .rows();
        return expired + released;
    }
    // end::timeouts[]

    /** Releases the coupon a bill holds, in the caller's transaction. */
    private void releaseCouponOf(DSLContext tx, Connection c, long billId) {
        for (Long couponId : tx.select(PARKING_COUPONS.ID)
                .from(PARKING_COUPONS)
                .where(PARKING_COUPONS.BILL_ID.eq(billId))
                .and(PARKING_COUPONS.STATUS.eq(CouponStatus.RESERVED.name()))
                .fetch(PARKING_COUPONS.ID)) {
            coupons.transition(couponId, CouponStatus.RESERVED, CouponStatus.AVAILABLE)
                    .set("bill_id", null)
                    .apply(c);
        }
    }

    /** Rolls back a payment start whose coupon is taken. */
    private static final class CouponTaken extends RuntimeException {
        private static final long serialVersionUID = 1L;

        CouponTaken() {
            super("coupon taken", null, false, false);
        }
    }
}
