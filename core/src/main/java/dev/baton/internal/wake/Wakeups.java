package dev.baton.internal.wake;

import dev.baton.Condition;
import dev.baton.spi.Dialect;
import dev.baton.spi.HostTransaction;
import dev.baton.spi.HostTransactions;
import dev.baton.spi.Notifications;
import java.lang.ref.WeakReference;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Wake-ups of idle workers when a commit makes a row claimable, so that a worker need not wait for its next poll.
 *
 * <p>In this JVM: an operation that moves rows into a queue's claimable state (a transition into it, or into a state an
 * eligibility condition asks for; an outbox enqueue; a requeue of dead rows) wakes the idle workers of that queue after
 * it committed: at once for an operation that committed by itself, after the host's commit for one that joined a host
 * transaction (never on its rollback). Workers and queues are found by the data source, so every {@code Baton} over one
 * data source in this JVM shares them.
 *
 * <p>Across processes, where the database has {@link Notifications} (PostgreSQL): the operation also sends one
 * notification per woken queue, payload the queue's name, in its own transaction, so that it is delivered when that
 * commits; one {@link Listener} per instance with running workers holds one connection and wakes them.
 *
 * <p>A wake-up is a hint: the worker claims once, and a row it does not find is someone else's. Polling goes on as
 * before, so a lost hint costs only the poll interval. Thread-safe.
 */
public final class Wakeups {
    private static final Logger log = LoggerFactory.getLogger(Wakeups.class);

    /** The default channel of the notifications. */
    public static final String DEFAULT_CHANNEL = "baton_wakeups";

    /**
     * The registries by data source, found by identity (a data source's {@code equals} and {@code hashCode} are not
     * called: proxies may refuse them) and weakly held (a data source no longer used drops out).
     */
    private static final List<Keyed> REGISTRIES = new ArrayList<>();

    private record Keyed(WeakReference<DataSource> dataSource, Registry registry) {}

    private static Registry registryOf(DataSource dataSource) {
        synchronized (REGISTRIES) {
            REGISTRIES.removeIf(k -> k.dataSource.get() == null);
            for (Keyed k : REGISTRIES) {
                if (k.dataSource.get() == dataSource) {
                    return k.registry;
                }
            }
            Registry r = new Registry();
            REGISTRIES.add(new Keyed(new WeakReference<>(dataSource), r));
            return r;
        }
    }

    /** What makes a row claimable for one queue: a state in one column of its table. */
    private record Rule(String queue, String column, Set<Enum<?>> states) {}

    /** The queues and idle workers of one data source in this JVM. */
    static final class Registry {
        /** Rules by lower-case table name. */
        final Map<String, List<Rule>> rules = new ConcurrentHashMap<>();
        /** Wake actions of running workers, by queue name. */
        final Map<String, List<Runnable>> sleepers = new ConcurrentHashMap<>();
    }

    private final DataSource dataSource;
    private final Dialect dialect;
    private final HostTransactions hosts;
    private final boolean notify;
    private final String channel;
    private final Registry registry;
    private Listener listener;
    private int listening;

    /**
     * Wake-ups for one instance.
     *
     * @param crossProcess whether to send and listen for notifications where the dialect has them
     * @param channel the channel, a validated identifier
     */
    public Wakeups(
            DataSource dataSource, Dialect dialect, HostTransactions hosts, boolean crossProcess, String channel) {
        this.dataSource = dataSource;
        this.dialect = dialect;
        this.hosts = hosts;
        this.notify = crossProcess && dialect.notifications().supported();
        this.channel = channel;
        this.registry = registryOf(dataSource);
    }

    /** True when this instance sends and listens for notifications across processes. */
    public boolean crossProcess() {
        return notify;
    }

    /** The channel of the notifications. */
    public String channel() {
        return channel;
    }

    /**
     * Records a queue as built: rows of {@code table} moved into {@code claimable} in {@code stateColumn}, or into a
     * state one of its top-level eligibility conditions asks for, wake its workers.
     */
    public void queueBuilt(
            String queue, String table, String stateColumn, Enum<?> claimable, List<Condition> eligible) {
        List<Rule> rules = registry.rules.computeIfAbsent(key(table), t -> new CopyOnWriteArrayList<>());
        add(rules, new Rule(queue, key(stateColumn), Set.of(claimable)));
        for (Condition c : eligible) {
            if (c instanceof Condition.StateIn s) {
                add(rules, new Rule(queue, key(s.column()), Set.copyOf(s.states())));
            }
        }
    }

    private static void add(List<Rule> rules, Rule rule) {
        if (!rules.contains(rule)) {
            rules.add(rule);
        }
    }

    /** The queues (built in this JVM over this data source) whose rows a move of {@code column} to {@code state} makes claimable. */
    public List<String> queuesWokenBy(String table, String column, Enum<?> state) {
        if (registry.rules.isEmpty()) {
            return List.of();
        }
        List<Rule> rules = registry.rules.get(key(table));
        if (rules == null) {
            return List.of();
        }
        String col = key(column);
        List<String> out = List.of();
        for (Rule r : rules) {
            if (r.column.equals(col) && r.states.contains(state) && !out.contains(r.queue)) {
                out = out.isEmpty() ? List.of(r.queue) : append(out, r.queue);
            }
        }
        return out;
    }

    private static List<String> append(List<String> list, String s) {
        List<String> l = new ArrayList<>(list);
        l.add(s);
        return List.copyOf(l);
    }

    private static String key(String identifier) {
        return identifier.toLowerCase(Locale.ROOT);
    }

    /**
     * Sends the notifications of {@code queues} on {@code connection}, in its transaction if one is open (delivered at
     * its commit); nothing where notifications are off.
     */
    public void notifyIn(Connection connection, List<String> queues) throws SQLException {
        if (!notify || queues.isEmpty()) {
            return;
        }
        try (PreparedStatement ps =
                connection.prepareStatement(dialect.notifications().notifySql())) {
            for (String q : queues) {
                ps.setString(1, channel);
                ps.setString(2, q);
                ps.execute();
            }
        }
    }

    /**
     * Wakes this JVM's idle workers of {@code queues} after the host transaction active on this thread commits, or at
     * once when there is none (the operation committed by itself).
     */
    public void wakeAfterCommit(List<String> queues) {
        if (queues.isEmpty()) {
            return;
        }
        HostTransaction host = hosts.current(dataSource);
        if (host != null) {
            host.afterCommit(() -> wake(queues));
        } else {
            wake(queues);
        }
    }

    /**
     * For an operation that already ran (committed, or inside the host transaction on this thread): sends the
     * notifications (on the host's connection, or on a connection of their own) and wakes this JVM's workers after the
     * commit. A notification that cannot be sent is logged, never thrown: the rows are claimable, and polling finds
     * them.
     */
    public void announce(List<String> queues) {
        if (queues.isEmpty()) {
            return;
        }
        if (notify) {
            HostTransaction host = hosts.current(dataSource);
            try {
                if (host != null) {
                    Connection c = host.connection();
                    try {
                        notifyIn(c, queues);
                    } finally {
                        host.release(c);
                    }
                } else {
                    try (Connection c = dataSource.getConnection()) {
                        if (!c.getAutoCommit()) {
                            c.setAutoCommit(true);
                        }
                        notifyIn(c, queues);
                    }
                }
            } catch (SQLException e) {
                log.warn(
                        "could not notify queues {} of new rows; their workers will find them by polling: {}",
                        queues,
                        e.getMessage());
            }
        }
        wakeAfterCommit(queues);
    }

    /** Wakes this JVM's idle workers of {@code queues} now. */
    public void wake(List<String> queues) {
        for (String q : queues) {
            wake(q);
        }
    }

    /** Wakes this JVM's idle workers of {@code queue} now; an action that throws is logged. */
    void wake(String queue) {
        List<Runnable> actions = registry.sleepers.get(queue);
        if (actions == null) {
            return;
        }
        for (Runnable r : actions) {
            try {
                r.run();
            } catch (RuntimeException e) {
                log.warn("waking a worker of queue '{}' failed", queue, e);
            }
        }
    }

    /** Wakes every running worker of this data source in this JVM (after the listener missed notifications). */
    void wakeAll() {
        for (String q : registry.sleepers.keySet()) {
            wake(q);
        }
    }

    /**
     * Registers a running worker's wake action; on an instance that listens across processes, the first one starts the
     * listener.
     *
     * @return what unregisters it (and stops the listener after the last one)
     */
    public Runnable register(String queue, Runnable wake) {
        registry.sleepers
                .computeIfAbsent(queue, q -> new CopyOnWriteArrayList<>())
                .add(wake);
        if (notify) {
            synchronized (this) {
                if (listening++ == 0) {
                    Listener.Woken woken = new Listener.Woken() {
                        @Override
                        public void wake(String queue) {
                            Wakeups.this.wake(queue);
                        }

                        @Override
                        public void wakeAll() {
                            Wakeups.this.wakeAll();
                        }
                    };
                    listener = new Listener(woken, dataSource, dialect, channel);
                    listener.start();
                }
            }
        }
        AtomicBoolean done = new AtomicBoolean();
        return () -> {
            if (!done.compareAndSet(false, true)) {
                return;
            }
            List<Runnable> actions = registry.sleepers.get(queue);
            if (actions != null) {
                actions.remove(wake);
            }
            if (notify) {
                synchronized (this) {
                    if (--listening == 0 && listener != null) {
                        listener.stop();
                        listener = null;
                    }
                }
            }
        };
    }

    /** The running listener, or null: for tests. */
    public synchronized Listener listener() {
        return listener;
    }
}
