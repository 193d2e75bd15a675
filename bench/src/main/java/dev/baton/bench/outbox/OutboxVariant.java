package dev.baton.bench.outbox;

import java.sql.Connection;

/**
 * One side of the outbox comparison for one run: how a producer stores a message in its transaction, and the
 * dispatchers that deliver the messages. A new instance per run; {@link OutboxWorkload} does the rest (table, threads,
 * timer, verification) the same way for both.
 */
interface OutboxVariant {

    /**
     * Stores message {@code i} ({@link Ledger#payload}, {@link Ledger#key}) on {@code connection}, whose autocommit is
     * off, without committing.
     *
     * @return the new message's id
     */
    long enqueue(Connection connection, int i) throws Exception;

    /**
     * Starts {@code threads} dispatchers claiming up to {@code batch} messages at a time; each delivered message goes
     * to {@link Ledger#deliver}, and {@link Ledger#committed} is counted down once it is marked DELIVERED and
     * committed.
     */
    void startDispatchers(int threads, int batch) throws Exception;

    /** Stops the dispatchers (after the timer). */
    void stopDispatchers() throws Exception;

    /** Why a dispatcher stopped by itself, or null while they all run (Baton's workers never stop on an error). */
    default String problem() {
        return null;
    }
}
