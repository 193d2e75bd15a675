package dev.baton.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.baton.TransitionResult;
import dev.baton.examples.balance.PurchaseStatus;
import dev.baton.examples.parking.BillStatus;
import dev.baton.examples.parking.CouponStatus;
import dev.baton.examples.payment.OrderSync;
import dev.baton.examples.payment.PaymentStatus;
import dev.baton.examples.payment.Payments;
import dev.baton.examples.tasks.TaskRuns;
import dev.baton.testkit.SeededRunner;
import dev.baton.testservers.TestDatabase;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * How a host tests its own tables with the test kit: every binding and queue of the example schema passes
 * {@code verify()} on each server (the columns fit the machines, the indexes serve the claims), and the payment
 * callback matches an in-memory model over seeded random sequences.
 */
class HostTablesTest {

    @ParameterizedTest
    @MethodSource("dev.baton.examples.Servers#all")
    void everyBindingAndQueueOfTheExampleSchemaVerifies(Supplier<TestDatabase> server) {
        try (Fixture f = Fixture.on(server)) {
            // tag::verify-own-tables[]
            Payments payments = new Payments(f.baton, f.dsl, f.table("orders"));
            payments.orders().verify(); // the id is unique, the state column holds the machine's codes
            OrderSync.queue(f.baton, payments.orders(), OrderSync.Sink.NOT_IDEMPOTENT)
                    .verify(); // the queue's columns exist, and an index serves its claim (the planner says so)
            // end::verify-own-tables[]
            f.baton
                    .table(f.table("purchases"))
                    .state("status", PurchaseStatus.MACHINE)
                    .verify();
            f.baton
                    .table(f.table("parking_bills"))
                    .state("status", BillStatus.MACHINE)
                    .verify();
            f.baton
                    .table(f.table("parking_coupons"))
                    .state("status", CouponStatus.MACHINE)
                    .verify();
            new TaskRuns(f.baton, f.dsl, f.table("task_executions"), null)
                    .queue()
                    .verify();
        }
    }

    @ParameterizedTest
    @MethodSource("dev.baton.examples.Servers#all")
    void theCallbackAndTheSweepMatchAModel(Supplier<TestDatabase> server) {
        try (Fixture f = Fixture.on(server)) {
            Payments payments = new Payments(f.baton, f.dsl, f.table("orders"));
            // tag::model-test[]
            Map<Long, PaymentStatus> model = new HashMap<>(); // what the database must say
            List<Long> ids = new ArrayList<>();
            SeededRunner.sequences(4).steps(40).run((random, steps, seed) -> {
                for (int step = 0; step < steps; step++) {
                    int op = ids.isEmpty() ? 0 : random.nextInt(10);
                    if (op < 3) { // a new order
                        long id = ids.size() + 1;
                        payments.create(id, 100);
                        ids.add(id);
                        model.put(id, PaymentStatus.PENDING);
                    } else if (op < 9) { // a callback, perhaps a duplicate, perhaps late
                        long id = ids.get(random.nextInt(ids.size()));
                        TransitionResult<PaymentStatus> r = payments.recordPayment(id, "gw-" + id);
                        PaymentStatus before = model.get(id);
                        Class<?> expected = before == PaymentStatus.PENDING
                                ? TransitionResult.Applied.class
                                : before == PaymentStatus.PAID
                                        ? TransitionResult.AlreadyInTarget.class
                                        : TransitionResult.Rejected.class;
                        assertEquals(expected, r.getClass(), "seed " + seed + ", step " + step + ", order " + id);
                        model.computeIfPresent(id, (k, s) -> s == PaymentStatus.PENDING ? PaymentStatus.PAID : s);
                    } else { // the expiry sweep
                        Thread.sleep(2); // created_at must be in the past by the database clock
                        long pending = model.values().stream()
                                .filter(s -> s == PaymentStatus.PENDING)
                                .count();
                        assertEquals(pending, payments.expireUnpaid(Duration.ZERO), "seed " + seed + ", step " + step);
                        model.replaceAll((k, s) -> s == PaymentStatus.PENDING ? PaymentStatus.EXPIRED : s);
                    }
                }
                for (long id : ids) {
                    assertEquals(
                            model.get(id), payments.orders().currentState(id).orElseThrow(), "seed " + seed);
                }
            });
            // end::model-test[]
        }
    }
}
