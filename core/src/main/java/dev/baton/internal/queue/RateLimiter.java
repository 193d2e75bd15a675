package dev.baton.internal.queue;

import dev.baton.RateLimit;
import dev.baton.UnsupportedDatabaseException;
import dev.baton.internal.values.Identifiers;
import dev.baton.spi.Dialect;
import dev.baton.spi.SqlError;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.List;

/**
 * The token bucket of a rate-limited queue, in its row of the rate-limit table, run inside the claim's transaction.
 * The bucket is kept as the time at which it is full again ({@code full_at_micros}, by the database clock in
 * microseconds: the generic cell rate algorithm), so a claim reads one number and writes one: it holds {@code burst −
 * (full_at − now) / T} tokens, {@code T = 1 s / rate}, and a claim of {@code n} rows moves {@code full_at} to
 * {@code max(full_at, now) + n·T}. Thread-safe.
 *
 * <p>{@link #take} locks the row ({@code FOR UPDATE}; SQL Server {@code UPDLOCK, ROWLOCK}) and answers the whole
 * tokens; the claim then takes at most that many rows, and {@link #spend} moves the bucket by the rows it took, in
 * the same transaction: a claim that rolls back (or whose reply is lost before its commit) takes no tokens, and two
 * claims never count the same tokens, since the second waits for the first's commit on the row lock.
 */
final class RateLimiter {
    /** What {@link #take} found: the whole tokens, and the bucket's time ahead of now (micros, 0 when full). */
    record Taken(int tokens, long aheadMicros, boolean overfull) {}

    private final String queue;
    private final RateLimit limit;
    /** The emission interval T in microseconds: 1 s / rate. */
    private final double interval;
    /** burst × T: the most the bucket's time may run ahead of now. */
    private final long burstMicros;

    private final String readSql;
    private final String insertSql;
    private final String spendSql;
    private final Dialect dialect;

    /** The wait a claim on this thread last left for the next batch, in nanos (0: its claim was not cut). */
    private final ThreadLocal<long[]> lastWait = ThreadLocal.withInitial(() -> new long[1]);

    RateLimiter(Dialect d, String queue, RateLimit limit) {
        this.dialect = d;
        this.queue = queue;
        this.limit = limit;
        String clock = d.sql().clockMicros();
        if (clock == null) {
            throw new UnsupportedDatabaseException("queue '" + queue + "': rateLimit needs the database clock as a"
                    + " number, which dialect " + d.name() + " does not give (SqlVocabulary.clockMicros)");
        }
        this.interval = 1_000_000.0 / limit.rowsPerSecond();
        this.burstMicros = (long) Math.ceil(limit.burst() * interval);
        String table = Identifiers.quoteTable(d, limit.table());
        String name = d.sql().quote("queue_name");
        String full = d.sql().quote("full_at_micros");
        this.readSql = d.ownTables().lockingSelect(table, full + ", " + clock, name + " = ?");
        this.insertSql = d.ownTables().insertIfAbsent(table, List.of(name, full), List.of("?", clock), List.of(name));
        // the clock of the write, not of the read: a read that waited on the row lock may carry the time before it
        // waited, and an older "now" would hand the bucket tokens back
        this.spendSql = "UPDATE " + table + " SET " + full + " = CASE WHEN " + full + " > " + clock + " + ? THEN "
                + clock + " + ? WHEN " + full + " > " + clock + " THEN " + full + " ELSE " + clock + " END + ? WHERE "
                + name + " = ?";
    }

    /** The statements, in the order a claim runs them (the insert only the first time). */
    List<String> sql() {
        return List.of(readSql, insertSql, spendSql);
    }

    /** The limit as configured. */
    RateLimit limit() {
        return limit;
    }

    /**
     * Locks the queue's bucket (creating it full the first time) and answers the whole tokens it holds now, at most
     * {@code want}.
     */
    Taken take(Connection c, int want) throws SQLException {
        long[] read = read(c);
        if (read == null) {
            try (PreparedStatement ps = c.prepareStatement(insertSql)) {
                ps.setString(1, queue);
                ps.executeUpdate();
            } catch (SQLException e) {
                // the dialect's insert-if-absent may report a row another claimer inserted as a unique violation
                if (dialect.diagnostics().classify(e).kind() != SqlError.Kind.UNIQUE_VIOLATION) {
                    throw e;
                }
            }
            read = read(c);
            if (read == null) {
                throw new SQLException("the rate-limit row of queue '" + queue + "' vanished from " + limit.table());
            }
        }
        long ahead = read[0] - read[1];
        // ahead of burst × T only if the database clock went back or the limit was changed: count it as empty, and
        // spend() pulls it back to burst × T
        boolean overfull = ahead > burstMicros;
        long clamped = Math.max(0, Math.min(ahead, burstMicros));
        int tokens = (int) Math.floor(limit.burst() - clamped / interval + 1e-9);
        return new Taken(Math.max(0, Math.min(want, tokens)), clamped, overfull);
    }

    /**
     * Takes the {@code claimed} rows' tokens from the bucket (nothing to write when none and the bucket is not
     * overfull), and notes for this thread how long the next claim of {@code want} rows should wait when the limit
     * cut this one.
     */
    void spend(Connection c, Taken taken, int claimed, int want) throws SQLException {
        if (claimed > 0 || taken.overfull()) {
            try (PreparedStatement ps = c.prepareStatement(spendSql)) {
                ps.setLong(1, burstMicros);
                ps.setLong(2, burstMicros);
                ps.setLong(3, (long) Math.ceil(claimed * interval));
                ps.setString(4, queue);
                ps.executeUpdate();
            }
        }
        long wait = 0;
        if (taken.tokens() < want && claimed == taken.tokens()) {
            // cut by the limit, and the rows were there: wait until a batch's tokens (at most the burst) are back
            int next = Math.min(want, limit.burst());
            double ahead = taken.aheadMicros() + claimed * interval;
            double micros = Math.max(interval, ahead - (limit.burst() - next) * interval);
            wait = (long) Math.ceil(micros * 1000);
        }
        lastWait.get()[0] = wait;
    }

    /** Notes that this thread's last claim was not cut (a claim read back after a lost reply). */
    void notCut() {
        lastWait.get()[0] = 0;
    }

    /** How long this thread's last claim asks the next to wait, in nanos; 0 when the limit did not cut it. */
    long waitNanos() {
        return lastWait.get()[0];
    }

    /** The bucket's row as {full_at_micros, now_micros}, locked; null when the queue has none yet. */
    private long[] read(Connection c) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(readSql)) {
            ps.setString(1, queue);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() ? new long[] {rs.getLong(1), rs.getLong(2)} : null;
            }
        }
    }
}
