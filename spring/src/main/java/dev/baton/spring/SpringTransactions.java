package dev.baton.spring;

import dev.baton.spi.HostTransaction;
import dev.baton.spi.HostTransactions;
import java.sql.Connection;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;
import org.springframework.jdbc.datasource.ConnectionHolder;
import org.springframework.jdbc.datasource.DataSourceUtils;
import org.springframework.jdbc.datasource.TransactionAwareDataSourceProxy;
import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * Spring's transactions as Baton's host transactions, registered with {@link java.util.ServiceLoader}: with this
 * module on the class path, {@code Baton.using(dataSource)} joins the {@code @Transactional} method or
 * {@code TransactionTemplate} callback that has a transaction open on the calling thread for that data source (bound by
 * a {@code DataSourceTransactionManager}, {@code JdbcTransactionManager} or {@code JpaTransactionManager} over it).
 * Baton's statements then run on the transaction's connection ({@link DataSourceUtils#getConnection}), and listener
 * calls are registered as {@link TransactionSynchronization#afterCommit()}: they run after the commit and are dropped on
 * rollback. Outside a transaction (or in a scope without one, such as {@code PROPAGATION_SUPPORTS} with none open),
 * Baton runs its own.
 *
 * <p>A {@link TransactionAwareDataSourceProxy} given to Baton is unwrapped to its target: Baton then joins the
 * transaction the proxy would have handed out, and never commits the proxy's connection halfway. Stateless and
 * thread-safe; found by {@code ServiceLoader}, or set with {@code Baton.builder(ds).hostTransactions(new
 * SpringTransactions())}.
 */
public final class SpringTransactions implements HostTransactions {

    /** The implementation {@code ServiceLoader} instantiates. */
    public SpringTransactions() {}

    @Override
    public @Nullable HostTransaction current(DataSource dataSource) {
        if (!TransactionSynchronizationManager.isActualTransactionActive()) {
            return null;
        }
        // the transaction must hold a connection of this data source: a transaction of another data source's manager
        // is not one Baton's statements could join. DataSourceTransactionManager marks its holder synchronized;
        // JpaTransactionManager (and HibernateTransactionManager) bind the session's connection handle without that
        // mark, and DataSourceUtils hands out that connection all the same
        if (!(TransactionSynchronizationManager.getResource(dataSource) instanceof ConnectionHolder holder)
                || !(holder.isSynchronizedWithTransaction() || holder.getConnectionHandle() != null)) {
            return null;
        }
        return new Joined(dataSource);
    }

    @Override
    public DataSource target(DataSource dataSource) {
        DataSource d = dataSource;
        while (d instanceof TransactionAwareDataSourceProxy proxy && proxy.getTargetDataSource() != null) {
            d = proxy.getTargetDataSource();
        }
        return d;
    }

    private record Joined(DataSource dataSource) implements HostTransaction {
        @Override
        public Connection connection() {
            return DataSourceUtils.getConnection(dataSource);
        }

        @Override
        public void release(Connection connection) {
            DataSourceUtils.releaseConnection(connection, dataSource);
        }

        @Override
        public void afterCommit(Runnable action) {
            if (!TransactionSynchronizationManager.isSynchronizationActive()) {
                // a transaction manager set to SYNCHRONIZATION_NEVER: there is no commit to wait for
                action.run();
                return;
            }
            TransactionSynchronizationManager.registerSynchronization(new TransactionSynchronization() {
                @Override
                public void afterCommit() {
                    action.run();
                }
            });
        }
    }
}
