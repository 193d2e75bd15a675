package dev.baton.internal;

import dev.baton.internal.tx.BoundTransactions;
import dev.baton.spi.HostTransaction;
import dev.baton.spi.HostTransactions;
import java.util.ArrayList;
import java.util.List;
import java.util.ServiceLoader;
import javax.sql.DataSource;

/**
 * The host transactions one {@code Baton} looks for: first a transaction Baton itself has bound to this thread
 * ({@link BoundTransactions}, by {@code Baton.inTransaction}), then the configured or discovered implementations in
 * order. Immutable and thread-safe.
 */
public final class HostLookup implements HostTransactions {
    private final List<HostTransactions> hosts;
    /** {@link #hosts} as an array: {@link #current} runs on every operation and listener call, without an iterator. */
    private final HostTransactions[] lookup;

    private HostLookup(List<HostTransactions> hosts) {
        this.hosts = List.copyOf(hosts);
        this.lookup = this.hosts.toArray(new HostTransactions[0]);
    }

    /** Looks in Baton's own bound transactions, then in {@code configured}. */
    public static HostLookup of(List<HostTransactions> configured) {
        List<HostTransactions> all = new ArrayList<>();
        all.add(BoundTransactions.INSTANCE);
        all.addAll(configured);
        return new HostLookup(all);
    }

    /** The implementations registered through {@link ServiceLoader} with the class loader of core. */
    public static List<HostTransactions> discovered() {
        List<HostTransactions> found = new ArrayList<>();
        for (HostTransactions h : ServiceLoader.load(HostTransactions.class, HostLookup.class.getClassLoader())) {
            found.add(h);
        }
        return found;
    }

    @Override
    public HostTransaction current(DataSource dataSource) {
        for (HostTransactions h : lookup) {
            HostTransaction t = h.current(dataSource);
            if (t != null) {
                return t;
            }
        }
        return null;
    }

    @Override
    public DataSource target(DataSource dataSource) {
        DataSource d = dataSource;
        for (HostTransactions h : hosts) {
            d = h.target(d);
        }
        return d;
    }
}
