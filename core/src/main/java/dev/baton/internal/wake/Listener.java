package dev.baton.internal.wake;

import dev.baton.internal.values.Identifiers;
import dev.baton.spi.Dialect;
import dev.baton.spi.Notifications;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one connection of an instance that listens for notifications, on a daemon thread: it holds a connection of the
 * data source, subscribes it to the channel, and wakes this JVM's workers of the queue each payload names. When the
 * connection fails it opens a new one after a backoff (100 ms doubling to 30 s, with jitter), and once listening again
 * wakes every worker once, for the notifications it missed meanwhile; polling finds the rows in between. Each
 * connection goes back to the pool listening on nothing ({@link Notifications#unlistenAll}), or is aborted.
 *
 * <p>After subscribing it sends a probe on another connection and waits for it: a pooler that binds clients to server
 * sessions per transaction (PgBouncer in transaction or statement mode) delivers none, and the listener then stops,
 * with a warning, leaving the workers to poll.
 */
public final class Listener {
    private static final Logger log = LoggerFactory.getLogger(Listener.class);

    /** How long one wait for notifications lasts: the longest a stopped listener keeps its connection. */
    private static final int WAIT_MILLIS = 1000;
    /** How long the probe may take to come back. */
    private static final long PROBE_NANOS = TimeUnit.SECONDS.toNanos(5);
    /** How often a quiet connection is checked (a dropped network may not fail the wait). */
    private static final long CHECK_NANOS = TimeUnit.SECONDS.toNanos(60);

    private static final long FIRST_BACKOFF_MILLIS = 100;
    private static final long MAX_BACKOFF_MILLIS = 30_000;
    private static final AtomicInteger THREADS = new AtomicInteger();

    private final Woken woken;
    private final DataSource dataSource;
    private final Notifications notifications;
    private final String channel;
    private final String quotedChannel;
    private final Thread thread;
    private final AtomicInteger connects = new AtomicInteger();
    private volatile boolean stopped;
    private volatile boolean listening;
    private volatile boolean deaf;

    /** Whom a notification wakes: the instance's waiting workers. */
    interface Woken {
        /** Wakes the workers of {@code queue}. */
        void wake(String queue);

        /** Wakes every waiting worker (what was notified while no connection listened). */
        void wakeAll();
    }

    Listener(Woken woken, DataSource dataSource, Dialect dialect, String channel) {
        this.woken = woken;
        this.dataSource = dataSource;
        this.notifications = dialect.notifications();
        this.channel = channel;
        this.quotedChannel = Identifiers.quote(dialect, channel);
        this.thread = new Thread(this::run, "baton-wakeup-listener-" + THREADS.incrementAndGet());
        this.thread.setDaemon(true);
    }

    void start() {
        thread.start();
    }

    /** Stops listening; the connection goes back within a second. */
    void stop() {
        stopped = true;
    }

    /** True while subscribed and probed. */
    public boolean listening() {
        return listening;
    }

    /** True when the probe never came back (a pooler in transaction mode): the listener stopped. */
    public boolean deaf() {
        return deaf;
    }

    /** How many times the listener subscribed a connection. */
    public int connects() {
        return connects.get();
    }

    private void run() {
        long backoff = FIRST_BACKOFF_MILLIS;
        boolean warned = false;
        while (!stopped) {
            try (Connection c = dataSource.getConnection()) {
                if (!c.getAutoCommit()) {
                    c.setAutoCommit(true);
                }
                try {
                    notifications.listen(c, quotedChannel);
                    if (!probe(c)) {
                        deaf = true;
                        log.warn(
                                "notifications on channel {} sent on another connection never reached the listening"
                                        + " connection (a pooler such as PgBouncer in transaction or statement mode forwards"
                                        + " none): workers in other processes are woken by polling only. Give Baton a"
                                        + " data source that connects directly, or turn crossProcessWakeups off",
                                channel);
                        return;
                    }
                    if (connects.incrementAndGet() > 1) {
                        log.info("listening for wake-ups on channel {} again", channel);
                        woken.wakeAll(); // what was notified while no connection listened
                    }
                    listening = true;
                    backoff = FIRST_BACKOFF_MILLIS;
                    warned = false;
                    listen(c);
                } finally {
                    unlisten(c);
                }
            } catch (SQLException | RuntimeException e) {
                listening = false;
                if (stopped) {
                    return;
                }
                if (!warned) {
                    log.warn(
                            "the connection listening for wake-ups on channel {} failed; workers poll meanwhile,"
                                    + " reconnecting with backoff: {}",
                            channel,
                            e.toString());
                    warned = true;
                } else {
                    log.debug("listening for wake-ups failed again: {}", e.toString());
                }
                sleep(backoff + ThreadLocalRandom.current().nextLong(backoff / 2 + 1));
                backoff = Math.min(backoff * 2, MAX_BACKOFF_MILLIS);
            } finally {
                listening = false;
            }
        }
    }

    /**
     * Makes {@code c} listen on nothing before it goes back to the pool; a connection that cannot is aborted, so that
     * the pool discards it instead of handing it out still listening.
     */
    private void unlisten(Connection c) {
        try {
            notifications.unlistenAll(c);
        } catch (SQLException | RuntimeException e) {
            log.debug("could not stop the wake-up connection listening, discarding it: {}", e.toString());
            try {
                c.abort(Runnable::run);
            } catch (SQLException | RuntimeException a) {
                log.debug("aborting the wake-up connection failed: {}", a.toString());
            }
        }
    }

    /** Waits for notifications and wakes their queues until stopped or the connection fails. */
    private void listen(Connection c) throws SQLException {
        long checked = System.nanoTime();
        while (!stopped) {
            List<String> payloads = notifications.await(c, WAIT_MILLIS);
            if (payloads.isEmpty()) {
                if (System.nanoTime() - checked > CHECK_NANOS) {
                    if (!c.isValid(5)) {
                        throw new SQLException("the listening connection is no longer valid");
                    }
                    checked = System.nanoTime();
                }
                continue;
            }
            checked = System.nanoTime();
            // a burst of notifications of one queue wakes its workers once
            Set<String> queues = new LinkedHashSet<>(payloads);
            for (String q : queues) {
                woken.wake(q);
            }
        }
    }

    /**
     * Sends a probe on another connection and waits for it on {@code c}, waking what arrives meanwhile. True when it
     * arrived, or when no other connection could be had (then the probe proves nothing either way).
     */
    private boolean probe(Connection c) throws SQLException {
        String probe = "baton-probe:"
                + Long.toUnsignedString(ThreadLocalRandom.current().nextLong(), 36);
        try (Connection other = dataSource.getConnection()) {
            if (!other.getAutoCommit()) {
                other.setAutoCommit(true);
            }
            try (PreparedStatement ps = other.prepareStatement(notifications.notifySql())) {
                ps.setString(1, channel);
                ps.setString(2, probe);
                ps.execute();
            }
        } catch (SQLException e) {
            log.debug("could not send the wake-up probe: {}", e.toString());
            return true;
        }
        long deadline = System.nanoTime() + PROBE_NANOS;
        while (!stopped && System.nanoTime() < deadline) {
            List<String> payloads = notifications.await(c, 200);
            boolean found = false;
            for (String p : new LinkedHashSet<>(payloads)) {
                if (p.equals(probe)) {
                    found = true;
                } else {
                    woken.wake(p);
                }
            }
            if (found) {
                return true;
            }
        }
        return stopped;
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
