package dev.baton.spring;

import dev.baton.spi.HostTransaction;
import dev.baton.spi.HostTransactions;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
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
 * a {@code DataSourceTransactionManager}, {@code JdbcTransactionManager} or {@code JpaTransactionManager} over it, with
 * or without transaction synchronization). Baton's statements then run on the transaction's connection ({@link
 * DataSourceUtils#getConnection}), and listener calls are registered as {@link TransactionSynchronization#afterCommit()}:
 * they run after the commit and are dropped on rollback, and those made inside a {@code PROPAGATION_NESTED} scope are
 * dropped when it rolls back to its savepoint. Outside a transaction (or in a scope without one, such as {@code
 * PROPAGATION_SUPPORTS} with none open), Baton runs its own. In a read-only transaction ({@code readOnly = true}) Baton's
 * reads join it and its writes are refused before any SQL ({@link dev.baton.ReadOnlyTransactionException}).
 *
 * <p>A manager set to {@code SYNCHRONIZATION_NEVER} binds its connection all the same (and {@code JdbcTemplate} uses
 * it): Baton joins it too, and runs listener calls at once, as there is no commit it could wait for.
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
        // the transaction must hold a connection of this data source: a transaction of another data source's manager
        // is not one Baton's statements could join. DataSourceTransactionManager marks its holder synchronized;
        // JpaTransactionManager (and HibernateTransactionManager) bind the session's connection handle without that
        // mark, and DataSourceUtils hands out that connection all the same
        if (!(TransactionSynchronizationManager.getResource(dataSource) instanceof ConnectionHolder holder)
                || holder.getConnectionHandle() == null) {
            return null;
        }
        if (TransactionSynchronizationManager.isActualTransactionActive()) {
            return new Joined(dataSource, TransactionSynchronizationManager.isCurrentTransactionReadOnly());
        }
        // no transaction as far as synchronization knows: either a manager set to SYNCHRONIZATION_NEVER, which binds
        // its connection without telling the synchronization manager (DataSourceUtils hands it out all the same), or
        // a scope without a transaction whose connection DataSourceUtils bound for reuse (in autocommit mode). Decide
        // as DataSourceUtils does, by the bound connection: in a transaction or not
        try {
            Connection c = holder.getConnection();
            return c.getAutoCommit() ? null : new Joined(dataSource, c.isReadOnly());
        } catch (SQLException e) {
            return null;
        }
    }

    @Override
    public DataSource target(DataSource dataSource) {
        DataSource d = dataSource;
        while (d instanceof TransactionAwareDataSourceProxy proxy && proxy.getTargetDataSource() != null) {
            d = proxy.getTargetDataSource();
        }
        return d;
    }

    private record Joined(DataSource dataSource, boolean readOnly) implements HostTransaction {
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
            AfterCommit.of().add(action);
        }
    }

    /**
     * The listener calls Baton deferred in one transaction (one instance per transaction, registered once), run in
     * order after the commit. Spring tells every registered synchronization when a {@code PROPAGATION_NESTED} scope
     * sets a savepoint and when it rolls back to it ({@link #savepoint}, {@link #savepointRollback}, Spring 6.2+): the
     * calls made after a savepoint that was rolled back are dropped, as the writes they report were undone. A savepoint
     * set before this instance was registered (the nested scope's first Baton call registered it) is one every call
     * here came after.
     */
    private static final class AfterCommit implements TransactionSynchronization {
        private final List<Runnable> actions = new ArrayList<>();
        private final Map<Object, Integer> savepoints = new IdentityHashMap<>();

        /** This transaction's instance: the one registered, else a new one, registered now. */
        static AfterCommit of() {
            for (TransactionSynchronization s : TransactionSynchronizationManager.getSynchronizations()) {
                if (s instanceof AfterCommit mine) {
                    return mine;
                }
            }
            AfterCommit mine = new AfterCommit();
            TransactionSynchronizationManager.registerSynchronization(mine);
            return mine;
        }

        void add(Runnable action) {
            actions.add(action);
        }

        @Override
        public void savepoint(Object savepoint) {
            savepoints.put(savepoint, actions.size());
        }

        @Override
        public void savepointRollback(Object savepoint) {
            Integer mark = savepoints.remove(savepoint);
            int keep = mark == null ? 0 : mark;
            if (keep < actions.size()) {
                actions.subList(keep, actions.size()).clear();
            }
        }

        @Override
        public void afterCommit() {
            for (Runnable action : actions) {
                action.run();
            }
        }
    }
}
