package dev.baton.examples.docs;

import dev.baton.Baton;
import dev.baton.ClaimQueue;
import dev.baton.Outcome;
import dev.baton.Worker;
import dev.baton.examples.payment.SyncStatus;

/** The virtual-thread worker of docs/src/workers.md, compiled (it runs on JDK 21 or later only). */
final class VirtualThreadsSnippets {
    private VirtualThreadsSnippets() {}

    static Worker virtualThreadsWorker(Baton baton, ClaimQueue<SyncStatus> queue) {
        // tag::virtual-threads-worker[]
        Worker worker = baton.worker(queue)
                .virtualThreads() // JDK 21+: a virtual thread per handler
                .concurrency(200) // still the bound: at most 200 handlers at once, and 200 rows in flight
                .batchSize(50)
                .handle(row -> Outcome.complete(SyncStatus.COMPLETED))
                .start();
        // end::virtual-threads-worker[]
        return worker;
    }
}
