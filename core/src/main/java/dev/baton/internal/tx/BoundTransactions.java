package dev.baton.internal.tx;

import dev.baton.spi.HostTransaction;
import dev.baton.spi.HostTransactions;
import java.sql.Connection;
import java.util.ArrayList;
import java.util.List;
import javax.sql.DataSource;

/**
 * Transactions Baton opened itself for a caller ({@code Baton.inTransaction}) and bound to the opening thread, so
 * that data-source operations called inside join them. Thread-confined state; the instance is thread-safe.
 */
public final class BoundTransactions implements HostTransactions {
    /** The one instance. */
    public static final BoundTransactions INSTANCE = new BoundTransactions();

    private static final ThreadLocal<Bound> CURRENT = new ThreadLocal<>();

    private BoundTransactions() {}

    @Override
    public HostTransaction current(DataSource dataSource) {
        for (Bound b = CURRENT.get(); b != null; b = b.outer) {
            if (b.dataSource == dataSource) {
                return b;
            }
        }
        return null;
    }

    /** Binds {@code connection}'s open transaction on {@code dataSource} to this thread until {@link Bound#close()}. */
    public static Bound bind(DataSource dataSource, Connection connection) {
        Bound b = new Bound(dataSource, connection, CURRENT.get());
        CURRENT.set(b);
        return b;
    }

    /** One bound transaction; {@link #close()} unbinds it and hands back the actions to run if it commits. */
    public static final class Bound implements HostTransaction, AutoCloseable {
        private final DataSource dataSource;
        private final Connection connection;
        private final Bound outer;
        private final List<Runnable> afterCommit = new ArrayList<>();

        private Bound(DataSource dataSource, Connection connection, Bound outer) {
            this.dataSource = dataSource;
            this.connection = connection;
            this.outer = outer;
        }

        @Override
        public Connection connection() {
            return connection;
        }

        @Override
        public void afterCommit(Runnable action) {
            afterCommit.add(action);
        }

        /** The actions registered so far, in order. */
        public List<Runnable> afterCommitActions() {
            return List.copyOf(afterCommit);
        }

        /** Unbinds this transaction from the thread. */
        @Override
        public void close() {
            if (outer == null) {
                CURRENT.remove();
            } else {
                CURRENT.set(outer);
            }
        }
    }
}
