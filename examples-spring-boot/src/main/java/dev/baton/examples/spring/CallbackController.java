package dev.baton.examples.spring;

import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RestController;

/** The HTTP side: orders are created, the gateway calls back. */
@RestController
public class CallbackController {
    private final Payments payments;

    CallbackController(Payments payments) {
        this.payments = payments;
    }

    /**
     * A new order.
     *
     * @param orderId the order's id
     * @param amountCents its amount
     */
    public record NewOrder(long orderId, long amountCents) {}

    /**
     * The gateway's success notification.
     *
     * @param orderId the order paid
     * @param gatewayTransactionId the gateway's transaction
     * @param notificationId the notification's own id (the same on a redelivery)
     */
    public record GatewayCallback(long orderId, String gatewayTransactionId, String notificationId) {}

    /** {@code POST /orders}. */
    @PostMapping("/orders")
    public NewOrder create(@RequestBody NewOrder order) {
        payments.create(order.orderId(), order.amountCents());
        return order;
    }

    /** {@code POST /gateway/callback}. */
    // tag::boot-endpoint[]
    @PostMapping("/gateway/callback")
    public CallbackReply callback(@RequestBody GatewayCallback callback) {
        return payments.recordPayment(callback.orderId(), callback.gatewayTransactionId(), callback.notificationId());
    }
    // end::boot-endpoint[]
}
