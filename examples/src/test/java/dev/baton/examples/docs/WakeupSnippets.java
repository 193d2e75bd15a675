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
    static Baton acrossProcesses(DataSource direct) {
        // opt in on a data source that reaches PostgreSQL directly (not PgBouncer in transaction mode); instances
        // that should wake each other share a channel (default baton_wakeups)
        return Baton.builder(direct)
                .crossProcessWakeups(true)
                .wakeupChannel("billing_wakeups")
                .build();
    }
    // end::wakeup-builder[]
}
