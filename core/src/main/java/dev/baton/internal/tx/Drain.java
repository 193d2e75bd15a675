package dev.baton.internal.tx;

import dev.baton.spi.BatchUpdate;
import dev.baton.spi.Rows;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.List;

/** Bounded batch updates run until a batch comes back short, and the plain updates they are made of. */
public final class Drain {
    private static final Object[] NO_ARGS = new Object[0];

    private Drain() {}

    /**
     * What a drain did: rows changed and batches run (the last one short); {@code countInDoubt} when a batch lost its
     * reply, so that {@code rows} is a lower bound (the lost batch may have committed rows it never reported).
     */
    public record Drained(long rows, int batches, boolean countInDoubt) {}

    /** One batch of a drain: the rows it changed. */
    @FunctionalInterface
    public interface Batch<E extends Exception> {
        /** Runs the batch. */
        int run() throws E;
    }

    /** Runs a bounded batch update on the caller's connection until a batch comes back short. */
    public static Drained drain(Connection c, BatchUpdate statement, int batchSize) throws SQLException {
        return drain(batchSize, () -> statement.execute(c, NO_ARGS).size());
    }

    /**
     * Runs a bounded batch update on the data source, each batch as {@link Transactions#batchUpdate} does, until a
     * batch comes back short. A batch whose reply was lost is run again (the statement is guarded, so a batch that had
     * committed is not applied twice) but its count is unknown: the total is then a lower bound ({@link
     * Drained#countInDoubt()}).
     */
    public static Drained drain(Transactions tx, String operation, BatchUpdate statement, int batchSize) {
        return drainReporting(
                batchSize,
                () -> tx.batchUpdateReporting(
                        operation, c -> statement.execute(c, NO_ARGS).size()));
    }

    /**
     * Runs batches of at most {@code batchSize} rows until one comes back short; the count is in doubt when any batch
     * ran again after a lost reply.
     */
    public static <E extends Exception> Drained drainReporting(int batchSize, ReportingBatch<E> batch) throws E {
        long rows = 0;
        int batches = 0;
        boolean inDoubt = false;
        while (true) {
            Attempted<Integer> n = batch.run();
            rows += n.value();
            inDoubt |= n.afterLostReply();
            batches++;
            if (n.value() < batchSize) {
                return new Drained(rows, batches, inDoubt);
            }
        }
    }

    /** One batch of a drain on the data source: the rows it changed, and whether it ran again after a lost reply. */
    @FunctionalInterface
    public interface ReportingBatch<E extends Exception> {
        /** Runs the batch. */
        Attempted<Integer> run() throws E;
    }

    /** Runs batches of at most {@code batchSize} rows until one comes back short. */
    public static <E extends Exception> Drained drain(int batchSize, Batch<E> batch) throws E {
        return drainReporting(batchSize, () -> new Attempted<>(batch.run(), false));
    }

    /** Executes an update with {@code binds} on {@code c} and returns its update count. */
    public static int update(Connection c, String sql, List<Object> binds) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(sql)) {
            Rows.bind(ps, 1, binds);
            return ps.executeUpdate();
        }
    }

    /**
     * Runs an autocommit retention delete at READ COMMITTED when the connection is at another level than READ
     * COMMITTED or REPEATABLE READ, giving the connection its level back after: the delete may skip locked rows, and
     * SQL Server's READPAST fails at SNAPSHOT, SERIALIZABLE and READ UNCOMMITTED (error 650), levels a pool may hand
     * out.
     */
    public static int deleteAtReadCommitted(Connection c, String sql) throws SQLException {
        int level = c.getTransactionIsolation();
        // REPEATABLE READ allows READPAST too, and is MySQL's default: left as it is
        if (level == Connection.TRANSACTION_READ_COMMITTED || level == Connection.TRANSACTION_REPEATABLE_READ) {
            return update(c, sql, List.of());
        }
        c.setTransactionIsolation(Connection.TRANSACTION_READ_COMMITTED);
        try {
            return update(c, sql, List.of());
        } finally {
            if (!c.isClosed()) {
                c.setTransactionIsolation(level);
            }
        }
    }
}
