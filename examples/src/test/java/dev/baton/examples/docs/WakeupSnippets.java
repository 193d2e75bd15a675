package dev.baton.examples.docs;

import dev.baton.Baton;
import dev.baton.ClaimQueue;
import dev.baton.Outcome;
import dev.baton.Worker;
import java.time.Duration;
import javax.sql.DataSource;

/** The wake-up code of docs/src/claim-queues.md and docs/src/workers.md, compiled. */
final class WakeupSnippets {
    private WakeupSnippets() {}

    enum Job {
        PENDING,
        RUNNING,
        DONE,
        FAILED
    }

    // tag::wakeup-worker[]
    static Worker start(Baton baton, ClaimQueue<Job> jobs) {
        // a commit that makes a row claimable wakes this worker at once (in this JVM; on PostgreSQL in any
        // process listening on the channel): the poll interval only bounds how late a missed wake-up is noticed
        return baton.worker(jobs)
                .pollInterval(Duration.ofSeconds(1), Duration.ofSeconds(30))
                .handle(row -> Outcome.complete(Job.DONE))
                .start();
    }
    // end::wakeup-worker[]

    // tag::wakeup-builder[]
    static Baton behindPgBouncer(DataSource transactionPooled) {
        // PgBouncer in transaction mode delivers no notification: send none, listen for none; workers are still
        // woken by commits in their own JVM, and poll
        return Baton.builder(transactionPooled).crossProcessWakeups(false).build();
    }

    static Baton ownChannel(DataSource dataSource) {
        // instances that should wake each other share a channel (default baton_wakeups)
        return Baton.builder(dataSource).wakeupChannel("billing_wakeups").build();
    }
    // end::wakeup-builder[]
}
