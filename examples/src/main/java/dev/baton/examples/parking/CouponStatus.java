package dev.baton.examples.parking;

import dev.baton.StateMachine;

/** Status of a coupon (seed 003), stored as its name in {@code parking_coupons.status}. */
public enum CouponStatus {
    /** Free to use. */
    AVAILABLE,
    /** Held by a bill that is being paid. */
    RESERVED,
    /** Spent on a paid bill. */
    USED;

    // tag::coupon-machine[]
    /** Reserved while a payment runs; used when it succeeds; released when it fails, is cancelled or times out. */
    public static final StateMachine<CouponStatus> MACHINE = StateMachine.of(CouponStatus.class)
            .name("coupon")
            .initial(AVAILABLE)
            .allow(AVAILABLE, RESERVED)
            .allow(RESERVED, AVAILABLE, USED)
            .terminal(USED)
            .build();
    // end::coupon-machine[]
}
