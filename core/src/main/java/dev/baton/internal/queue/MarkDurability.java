package dev.baton.internal.queue;

import dev.baton.SendDurability;
import dev.baton.spi.Diagnostics;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * Waits, on the connection that committed a SENDING mark, until a standby has flushed it ({@link SendDurability}):
 * reads the server's log position once, then polls the standbys' progress with a short backoff (1 ms doubling to 20
 * ms) until one has it or the queue's wait is over. Stateless.
 */
public final class MarkDurability {
    private static final long FIRST_PAUSE_NANOS = TimeUnit.MILLISECONDS.toNanos(1);
    private static final long MAX_PAUSE_NANOS = TimeUnit.MILLISECONDS.toNanos(20);

    private MarkDurability() {}

    /**
     * Empty when a standby has everything {@code c} committed, else why not (the database cannot say, or no standby
     * had it within {@code maxWait}).
     */
    public static Optional<String> await(Connection c, Diagnostics diagnostics, Duration maxWait) throws SQLException {
        Optional<String> position = diagnostics.commitPosition(c);
        if (position.isEmpty()) {
            return Optional.of("the database does not report replication progress");
        }
        long deadline = System.nanoTime() + maxWait.toNanos();
        long pause = FIRST_PAUSE_NANOS;
        while (diagnostics.standbysFlushedTo(c, position.get()) == 0) {
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                return Optional.of("no standby had flushed log position " + position.get() + " after " + maxWait
                        + "; is a standby connected, and may the database user read pg_stat_replication? (Galera: is"
                        + " the node Synced in a Primary component of two or more?)");
            }
            try {
                TimeUnit.NANOSECONDS.sleep(Math.min(pause, left));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return Optional.of("interrupted while waiting for a standby");
            }
            pause = Math.min(pause * 2, MAX_PAUSE_NANOS);
        }
        return Optional.empty();
    }
}
