package dev.baton.internal.events;

import dev.baton.BatonListener;
import dev.baton.spi.HostTransaction;
import dev.baton.spi.HostTransactions;
import java.util.List;
import java.util.function.Consumer;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The listeners of one instance: called at once, or after the host transaction commits when the event comes from
 * work done in it; a listener that throws is logged and never breaks the operation that fired it. Thread-safe.
 */
public final class Events {
    private static final Logger log = LoggerFactory.getLogger(Events.class);

    private final List<BatonListener> listeners;
    private final HostTransactions hosts;
    private final DataSource dataSource;

    /** The listeners, deferring to the host transactions {@code hosts} finds for {@code dataSource}. */
    public Events(List<BatonListener> listeners, HostTransactions hosts, DataSource dataSource) {
        this.listeners = List.copyOf(listeners);
        this.hosts = hosts;
        this.dataSource = dataSource;
    }

    /**
     * Calls every listener, catching and logging what they throw: at once, or after the host transaction commits when
     * one is active on this thread (never, if it rolls back).
     */
    public void fire(Consumer<BatonListener> call) {
        if (listeners.isEmpty()) {
            return;
        }
        HostTransaction host = hosts.current(dataSource);
        if (host != null) {
            host.afterCommit(() -> fireNow(call));
        } else {
            fireNow(call);
        }
    }

    /**
     * Calls every listener now, also inside a host transaction: for what Baton committed on a connection of its own,
     * which the host's rollback does not undo.
     */
    public void fireNow(Consumer<BatonListener> call) {
        for (BatonListener l : listeners) {
            try {
                call.accept(l);
            } catch (RuntimeException e) {
                log.warn("listener {} threw; ignored", l.getClass().getName(), e);
            }
        }
    }

    /** True when any listener is registered (lets hot paths skip building events). */
    public boolean hasListeners() {
        return !listeners.isEmpty();
    }
}
