package dev.baton.spi;

import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;

/**
 * Finds the transaction a host framework (Spring, a caller's own code) has open on the current thread for a data
 * source, so that Baton's data-source operations join it instead of opening a connection of their own. Baton asks
 * once per operation: when {@link #current} returns a transaction, Baton runs its statements on that transaction's
 * connection, never commits, rolls back or changes autocommit or isolation on it, does not retry inside it, and defers
 * listener calls until it commits (they are dropped on rollback); when it returns null, Baton opens, commits and
 * retries a transaction of its own.
 *
 * <p>Implementations are found with {@link java.util.ServiceLoader} when a {@code Baton} is built (a module that
 * registers one, such as {@code baton-spring}, needs no other code), or set with {@code Baton.Builder.hostTransactions}.
 * They must be thread-safe and cheap: {@link #current} runs on every operation.
 */
public interface HostTransactions {

    /** Finds no host transaction: Baton always runs its own. */
    HostTransactions NONE = dataSource -> null;

    /**
     * The transaction the host has open on this thread for {@code dataSource}, or null when there is none (or when
     * it is not one Baton may join, such as a non-transactional scope). A read-only transaction is returned with
     * {@link HostTransaction#readOnly()} true: Baton refuses its writes there.
     *
     * @param dataSource the data source as {@link #target} returned it
     */
    @Nullable
    HostTransaction current(DataSource dataSource);

    /**
     * The data source Baton should open its own connections from and look transactions up by: a proxy that hands out
     * the host transaction's connection (such as Spring's {@code TransactionAwareDataSourceProxy}, whose connections
     * Baton must never commit) is unwrapped to its target here. Called once, when a {@code Baton} is built. Default:
     * {@code dataSource} itself.
     */
    default DataSource target(DataSource dataSource) {
        return dataSource;
    }
}
