package dev.baton.examples.docs;

import dev.baton.Baton;
import dev.baton.ClaimQueue;
import dev.baton.GroupWeights;
import dev.baton.Outcome;
import dev.baton.RateLimit;
import dev.baton.Worker;
import dev.baton.examples.payment.SyncStatus;
import java.util.Map;

/**
 * Snippets of the guide's sections on shaped claims: a per-key limit, fairness across tenants,
 * priorities and a rate limit. Compiled here so that they cannot rot (see {@link DocsGenerator}).
 */
final class ClaimShapeSnippets {
    private ClaimShapeSnippets() {}

    static ClaimQueue<SyncStatus> perKeyLimit(Baton baton) {
        // tag::per-key-limit[]
        ClaimQueue<SyncStatus> queue = baton.<SyncStatus>queue("customer-sync")
                .table("orders")
                .claim("sync_status", SyncStatus.MACHINE, SyncStatus.PENDING, SyncStatus.PROCESSING)
                .deadState(SyncStatus.FAILED)
                .concurrencyPerKey("customer_id", 2) // at most 2 rows of one customer held at once
                .build();
        // end::per-key-limit[]
        return queue;
    }

    static ClaimQueue<SyncStatus> fairAcrossTenants(Baton baton) {
        // tag::fair-across[]
        ClaimQueue<SyncStatus> queue = baton.<SyncStatus>queue("tenant-sync")
                .table("orders")
                .claim("sync_status", SyncStatus.MACHINE, SyncStatus.PENDING, SyncStatus.PROCESSING)
                .deadState(SyncStatus.FAILED)
                .fairAcross("tenant_id") // each claim takes tenants' rows round-robin
                .build();
        // end::fair-across[]
        return queue;
    }

    static ClaimQueue<SyncStatus> weightedTenants(Baton baton) {
        // tag::fair-weights[]
        ClaimQueue<SyncStatus> queue = baton.<SyncStatus>queue("tenant-sync")
                .table("orders")
                .claim("sync_status", SyncStatus.MACHINE, SyncStatus.PENDING, SyncStatus.PROCESSING)
                .deadState(SyncStatus.FAILED)
                // acme takes 3 rows per turn, globex 2, every other tenant 1
                .fairAcross("tenant_id", GroupWeights.of(Map.of("acme", 3, "globex", 2)))
                .build();
        // end::fair-weights[]
        return queue;
    }

    static ClaimQueue<SyncStatus> priorities(Baton baton) {
        // tag::priority[]
        ClaimQueue<SyncStatus> queue = baton.<SyncStatus>queue("priority-sync")
                .table("orders")
                .claim("sync_status", SyncStatus.MACHINE, SyncStatus.PENDING, SyncStatus.PROCESSING)
                .deadState(SyncStatus.FAILED)
                .priority("priority") // higher first; FIFO (id order) within a priority
                .build();
        String index = queue.suggestedIndex(); // on PostgreSQL: (priority DESC, id) WHERE sync_status IN (0, 1)
        queue.verify(); // refuses the table until an index serves the claim order
        // end::priority[]
        return index.isEmpty() ? null : queue;
    }

    static ClaimQueue<SyncStatus> rateLimited(Baton baton) {
        // tag::rate-limit[]
        baton.ownTables().createRateLimitsTable(RateLimit.DEFAULT_TABLE); // or Flyway: V9__baton_rate_limits.sql
        ClaimQueue<SyncStatus> queue = baton.<SyncStatus>queue("partner-sync")
                .table("orders")
                .claim("sync_status", SyncStatus.MACHINE, SyncStatus.PENDING, SyncStatus.PROCESSING)
                .deadState(SyncStatus.FAILED)
                .rateLimit(50, 10) // at most 50 rows a second across all processes, bursts of up to 10
                .build();
        queue.verify(); // refuses the queue while its rate-limit table is missing
        // end::rate-limit[]
        return queue;
    }

    static Worker rateLimitedWorker(Baton baton, ClaimQueue<SyncStatus> queue) {
        // tag::rate-limited-worker[]
        Worker worker = baton.worker(queue) // a queue with rateLimit(50, 10)
                .batchSize(10) // a poller the limit cut waits until 10 tokens are back (200 ms), not its poll interval
                .concurrency(4)
                .handle(row -> Outcome.complete(SyncStatus.COMPLETED))
                .start();
        // end::rate-limited-worker[]
        return worker;
    }

    static Worker shapedWorker(Baton baton, ClaimQueue<SyncStatus> queue) {
        // tag::shaped-worker[]
        Worker worker = baton.worker(queue) // a queue with fairAcross, priority or concurrencyPerKey
                .batchSize(20)
                .concurrency(8) // each claim already obeys the queue's limit and order
                .handle(row -> Outcome.complete(SyncStatus.COMPLETED))
                .start();
        // end::shaped-worker[]
        return worker;
    }
}
