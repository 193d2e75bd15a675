package dev.baton.bench.outbox;

import dev.baton.Baton;
import dev.baton.BatonListener;
import dev.baton.EnqueueResult;
import dev.baton.Message;
import dev.baton.Outbox;
import dev.baton.Outcome;
import dev.baton.Worker;
import dev.baton.bench.Target;
import java.sql.Connection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * Baton's outbox with its default {@link Outbox.Options} (per-key ordering on, lease 1 minute): producers call {@link
 * Outbox#enqueue(Connection, Message)} in their transaction, dispatchers are {@link Outbox#dispatcher} workers. A
 * listener counts committed deliveries ({@code onOutcome} fires after the transaction that marked the batch DELIVERED
 * committed).
 */
final class BatonOutbox implements OutboxVariant {
    /** Poll after a short or empty claim: 5 ms, doubling to 20 ms while the outbox stays empty (as the raw loop). */
    static final Duration POLL = Duration.ofMillis(5);

    static final Duration MAX_IDLE = Duration.ofMillis(20);

    private final Ledger ledger;
    private final Outbox outbox;
    private final List<Worker> workers = new ArrayList<>();

    /** Builds the Baton instance and the outbox (on MariaDB this connects once to check strict mode); untimed. */
    BatonOutbox(Target target, Ledger ledger) {
        this.ledger = ledger;
        Baton baton = Baton.builder(target.pool())
                .listener(new BatonListener() {
                    @Override
                    public void onOutcome(String queue, Object id, Outcome.Kind kind, Enum<?> state, int attempt) {
                        ledger.committed.countDown();
                    }

                    @Override
                    public void onWorkerError(String queue, Throwable error) {
                        ledger.error();
                    }
                })
                .build();
        this.outbox = baton.outbox(OutboxTable.NAME);
    }

    /** The outbox, for its claim SQL. */
    Outbox outbox() {
        return outbox;
    }

    @Override
    public long enqueue(Connection connection, int i) {
        EnqueueResult r = outbox.enqueue(
                connection, Message.of(Ledger.TOPIC, Ledger.payload(i)).key(Ledger.key(i)));
        return ((EnqueueResult.Enqueued) r).id();
    }

    @Override
    public void startDispatchers(int threads, int batch) {
        for (int t = 0; t < threads; t++) {
            workers.add(outbox.dispatcher(m -> ledger.deliver(m.id(), m.topic(), m.payload()))
                    .batchSize(batch)
                    .pollInterval(POLL, MAX_IDLE)
                    .start());
        }
    }

    @Override
    public void stopDispatchers() {
        for (Worker w : workers) {
            w.close();
        }
    }
}
