package dev.baton.examples.support;

import dev.baton.Baton;
import java.sql.SQLException;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.Supplier;

/**
 * Retries a whole transaction of the caller's (a jOOQ {@code transactionResult}) when the database aborted it: a
 * deadlock or a serialization failure. Baton retries its own operations on a data source, but never those it runs
 * on a caller's connection: there the transaction is the caller's, and so is the retry. The failure is classified by
 * the dialect Baton found ({@code baton.dialect().classify}), per driver and vendor code.
 */
public final class Retry {
    private Retry() {}

    /**
     * Runs {@code transaction}, again after a short random pause when it failed transiently, up to 5 times.
     *
     * @throws RuntimeException the last failure, or the first one that is not transient
     */
    // tag::retry[]
    public static <T> T transaction(Baton baton, Supplier<T> transaction) {
        for (int attempt = 1; ; attempt++) {
            try {
                return transaction.get();
            } catch (RuntimeException e) {
                SQLException cause = sqlCause(e);
                boolean retryable = cause != null
                        && baton.dialect().diagnostics().classify(cause).retryable();
                if (!retryable || attempt == 5) {
                    throw e;
                }
                pause(attempt);
            }
        }
    }
    // end::retry[]

    private static SQLException sqlCause(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof SQLException s) {
                return s;
            }
        }
        return null;
    }

    private static void pause(int attempt) {
        try {
            Thread.sleep(ThreadLocalRandom.current().nextLong(5, 20L << attempt));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while retrying a transaction", e);
        }
    }
}
