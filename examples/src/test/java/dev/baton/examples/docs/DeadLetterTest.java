package dev.baton.examples.docs;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.baton.Baton;
import dev.baton.ClaimQueue;
import dev.baton.ClaimedRow;
import dev.baton.Condition;
import dev.baton.LeaseResult;
import dev.baton.Outbox;
import dev.baton.Outcome;
import dev.baton.RetryPolicy;
import dev.baton.examples.Fixture;
import dev.baton.examples.payment.PaymentStatus;
import dev.baton.examples.payment.Payments;
import dev.baton.examples.payment.SyncStatus;
import dev.baton.testservers.TestDatabase;
import dev.baton.testservers.TestDatabases;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.function.Supplier;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * What the guide says about dead letters: the workers page's metrics listener counts a retry with no attempt left
 * as a dead letter, not as a retry; the runbook's requeue gives a dead row another round with its attempts reset.
 */
class DeadLetterTest {

    @ParameterizedTest
    @MethodSource("dev.baton.examples.Servers#all")
    void theListenerCountsAnExhaustedRetryAsADeadLetterAndTheRunbookRequeuesTheRow(Supplier<TestDatabase> server) {
        try (Fixture f = Fixture.on(server)) {
            GuideSnippets.Metrics metrics = new GuideSnippets.Metrics();
            Baton baton = GuideSnippets.withMetrics(f.dataSource, metrics);
            Payments payments = new Payments(baton, f.dsl, f.table("orders"));
            payments.create(1, 100);
            payments.recordPayment(1, "gw-1");
            ClaimQueue<SyncStatus> queue = baton.<SyncStatus>queue("order-sync")
                    .table(f.table("orders"))
                    .id("id")
                    .claim("sync_status", SyncStatus.MACHINE, SyncStatus.PENDING, SyncStatus.PROCESSING)
                    .eligibleWhen(payments.orders().is(PaymentStatus.PAID), Condition.isNull("third_party_guid"))
                    .deadState(SyncStatus.FAILED)
                    .retry(RetryPolicy.exponential(Duration.ofMillis(10), 2.0).maxAttempts(2))
                    .build();
            metrics.watch(queue);

            retry(queue, 1, SyncStatus.PENDING); // attempt 1 of 2: back to the queue
            retry(queue, 2, SyncStatus.FAILED); // attempt 2 of 2: the same RETRY outcome dead-letters the row

            assertEquals(2, metrics.claimed.sum());
            assertEquals(1, metrics.retried.sum(), "the exhausted retry is not counted as a retry");
            assertEquals(1, metrics.deadLettered.sum(), "it is counted as a dead letter");
            assertEquals(0, metrics.completed.sum());
            assertEquals(List.of(), queue.claim(10), "a dead row is not claimed");

            // operations.md, "Dead letters": the runbook's snippet requeues the fixed row, once
            String outboxTable = TestDatabases.uniqueName("outbox");
            try {
                baton.ownTables().createOutboxTable(outboxTable);
                Outbox outbox = baton.outbox(outboxTable);
                assertEquals(1, queue.deadLetters().list(10).size());
                assertEquals(
                        "the sink said no", queue.deadLetters().list(10).get(0).lastError());
                assertEquals(0, GuideSnippets.requeueFixed(queue, outbox, Set.of(2L)), "only fixed orders");
                assertEquals(1, GuideSnippets.requeueFixed(queue, outbox, Set.of(1L)));
                assertEquals(0, GuideSnippets.requeueFixed(queue, outbox, Set.of(1L)), "not dead any more");
                assertEquals(0, queue.deadLetters().count(1000));
            } finally {
                f.db.dropTableIfExists(outboxTable);
            }
            List<ClaimedRow<SyncStatus>> again = queue.claim(10);
            assertEquals(1, again.size(), "the row is eligible again");
            assertEquals(1, again.get(0).attempt(), "with its attempts reset");
            assertEquals(
                    new LeaseResult.Done<>(again.get(0).id(), SyncStatus.COMPLETED),
                    queue.apply(again.get(0), Outcome.complete(SyncStatus.COMPLETED)));
            assertEquals(1, metrics.completed.sum());
        }
    }

    private static void retry(ClaimQueue<SyncStatus> queue, int attempt, SyncStatus expected) {
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        List<ClaimedRow<SyncStatus>> rows = queue.claim(10);
        while (rows.isEmpty() && System.nanoTime() < deadline) { // the backoff of the previous retry (10 ms)
            rows = queue.claim(10);
        }
        assertEquals(1, rows.size(), "attempt " + attempt + " claims the row");
        assertEquals(attempt, rows.get(0).attempt());
        LeaseResult<SyncStatus> r = queue.apply(rows.get(0), Outcome.retry("the sink said no"));
        assertEquals(new LeaseResult.Done<>(rows.get(0).id(), expected), r);
    }
}
