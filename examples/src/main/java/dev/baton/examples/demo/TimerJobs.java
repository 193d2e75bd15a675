package dev.baton.examples.demo;

import dev.baton.Baton;
import dev.baton.ClaimQueue;
import dev.baton.StateTable;
import dev.baton.Worker;
import dev.baton.examples.payment.OrderSync;
import dev.baton.examples.payment.PaymentStatus;
import dev.baton.examples.payment.SyncStatus;
import dev.baton.examples.payment.ThirdParty;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import javax.sql.DataSource;

/**
 * The timer jobs of one process, for both designs: {@code hosts} naive job threads, and {@code hosts} Baton workers
 * (two handlers each), as if each ran on its own server. They share nothing but the database and the third party.
 */
final class TimerJobs implements AutoCloseable {
    private final AtomicBoolean stop = new AtomicBoolean();
    private final AtomicLong naiveErrors = new AtomicLong();
    private final List<Thread> naiveThreads = new ArrayList<>();
    private final List<Worker> batonWorkers = new ArrayList<>();

    TimerJobs(
            NaiveDesign naive,
            DataSource naivePool,
            ThirdParty naiveThirdParty,
            Baton baton,
            String batonOrdersTable,
            ThirdParty batonThirdParty,
            int hosts) {
        for (int i = 0; i < hosts; i++) {
            Thread t = new Thread(
                    naive.timerJob(naivePool, naiveThirdParty, stop, naiveErrors, 200), "naive-timer-job-" + (i + 1));
            t.setDaemon(true);
            naiveThreads.add(t);
        }
        StateTable<PaymentStatus> orders =
                baton.table(batonOrdersTable).id("id").state("payment_status", PaymentStatus.MACHINE);
        ClaimQueue<SyncStatus> queue = OrderSync.queue(baton, orders, OrderSync.Sink.IDEMPOTENT);
        for (int i = 0; i < hosts; i++) {
            batonWorkers.add(OrderSync.start(baton, queue, batonThirdParty, 2));
        }
        naiveThreads.forEach(Thread::start);
    }

    /** Errors the naive jobs swallowed. */
    long naiveErrors() {
        return naiveErrors.get();
    }

    @Override
    public void close() {
        stop.set(true);
        for (Thread t : naiveThreads) {
            try {
                t.join(10_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        batonWorkers.forEach(Worker::close);
    }
}
