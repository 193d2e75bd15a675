package dev.baton.internal.receipts;

import dev.baton.BatonException;
import dev.baton.CommitNotDurableException;
import dev.baton.OutcomeInDoubtException;
import dev.baton.internal.CommitWait;
import dev.baton.internal.events.Events;
import dev.baton.internal.tables.ReceiptStatements;
import dev.baton.internal.tx.BoundTransactions;
import dev.baton.internal.tx.CommitMark;
import dev.baton.internal.tx.Connections;
import dev.baton.internal.tx.Drain;
import dev.baton.internal.tx.Ending;
import dev.baton.internal.tx.SqlWork;
import dev.baton.internal.tx.Transactions;
import dev.baton.spi.Diagnostics;
import dev.baton.spi.HostTransaction;
import java.security.SecureRandom;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.atomic.AtomicLong;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code Baton.inTransaction}: the caller's work in a transaction of Baton's own, through the retry loop of {@link
 * Transactions}, with a receipt written first so that a COMMIT whose reply was lost is read back, never run blind
 * again (see {@link ReceiptStatements}); also the receipt table's probe and purge. Thread-safe.
 */
public final class ReceiptGuard {
    private static final Logger log = LoggerFactory.getLogger(ReceiptGuard.class);

    private static final Random RECEIPT_RANDOM = new SecureRandom();
    private static final long PROBE_INTERVAL_NANOS = Duration.ofMinutes(1).toNanos();
    private static final long PURGE_INTERVAL_NANOS = Duration.ofMinutes(1).toNanos();
    /** Receipts are read back within the retries of one call (seconds); an hour leaves room for slow retries. */
    private static final Duration RETENTION = Duration.ofHours(1);

    private final Transactions tx;
    private final Diagnostics diagnostics;
    private final Events events;
    private final CommitWait commitWait;
    private final String table;
    private final ReceiptStatements receipts;

    private final AtomicLong purgedAt = new AtomicLong(System.nanoTime() - PURGE_INTERVAL_NANOS);
    private volatile long probedAt;
    private volatile boolean found;

    /**
     * The guard of {@code tx}'s own transactions, with receipts in {@code table} ({@code receipts} its statements),
     * waiting after each commit as {@code commitWait} says.
     */
    public ReceiptGuard(
            Transactions tx,
            Diagnostics diagnostics,
            Events events,
            CommitWait commitWait,
            String table,
            ReceiptStatements receipts) {
        this.tx = tx;
        this.diagnostics = diagnostics;
        this.events = events;
        this.commitWait = commitWait;
        this.table = table;
        this.receipts = receipts;
    }

    /** A random receipt, never 0. */
    public static long newReceipt() {
        long r;
        do {
            r = RECEIPT_RANDOM.nextLong();
        } while (r == 0);
        return r;
    }

    /** The receipt table's statements. */
    public ReceiptStatements statements() {
        return receipts;
    }

    /** The receipt table's name. */
    public String table() {
        return table;
    }

    /**
     * Runs {@code work} in a READ COMMITTED transaction on a connection of its own, bound to this thread so that
     * data-source operations called inside join it; commits, then runs the listener calls deferred inside. Retries the
     * whole transaction (after a rollback) on a retryable failure, as the retry policy allows. Inside a host
     * transaction, runs {@code work} once on the host's connection instead (only the host's owner can retry it).
     *
     * <p>A COMMIT whose reply was lost is never run blind again: each attempt first writes the call's receipt; the retry
     * after a lost COMMIT finds it when that COMMIT took effect, and then returns what the committed attempt's work
     * returned. Without a receipt table a lost COMMIT throws {@link OutcomeInDoubtException}.
     */
    public <T> T inTransaction(String operation, SqlWork<T> work) {
        HostTransaction host = tx.host();
        if (host != null) {
            return tx.joined(operation, host, work);
        }
        Call<T> call = new Call<>(operation, work, present(), newReceipt());
        return call.settle(tx.retrying(operation, call));
    }

    /** One attempt of a call: what its work returned, and how far it got. */
    private static final class Attempt<T> {
        final CommitMark mark = new CommitMark();
        final List<Runnable> afterCommit = new ArrayList<>();

        @Nullable
        T result;

        boolean receiptWritten;
        /** The receipt was already there: an earlier attempt's COMMIT took effect, and this one rolled back. */
        boolean foundCommitted;
        /** Why a standby was not known to have this attempt's commit in time ({@link CommitWait}); null: it was. */
        @Nullable
        String notDurable;
    }

    /** One call of {@link #inTransaction}, attempted by the retry loop. */
    private final class Call<T> implements Transactions.Unit<Attempt<T>> {
        private final String operation;
        private final SqlWork<T> work;
        private final boolean withReceipt;
        private final long receipt;
        private @Nullable Attempt<T> current;
        /** The attempt whose COMMIT reply was lost, while no later one has settled it. */
        private @Nullable Attempt<T> inDoubt;

        Call(String operation, SqlWork<T> work, boolean withReceipt, long receipt) {
            this.operation = operation;
            this.work = work;
            this.withReceipt = withReceipt;
            this.receipt = receipt;
        }

        @Override
        public boolean callersWork() {
            return true;
        }

        @Override
        public Attempt<T> attempt(boolean afterFailover) throws SQLException {
            Attempt<T> a = new Attempt<>();
            current = a;
            tx.connections()
                    .once(
                            true,
                            afterFailover,
                            c -> Connections.asCallersTransaction(c, own -> body(own, a)),
                            a.mark,
                            null,
                            commitWait.off() ? null : c -> a.notDurable = commitWait.await(c, diagnostics));
            return a;
        }

        private Ending<Boolean> body(Connection c, Attempt<T> a) throws SQLException {
            try (BoundTransactions.Bound bound =
                    BoundTransactions.bind(tx.connections().dataSource(), c)) {
                if (withReceipt) {
                    if (!receipts.insert(c, receipt)) {
                        a.foundCommitted = true;
                        return Ending.rollBack(Boolean.FALSE);
                    }
                    a.receiptWritten = true;
                }
                a.result = work.run(c);
                a.afterCommit.addAll(bound.afterCommitActions());
                return Ending.commit(Boolean.TRUE);
            }
        }

        @Override
        public void failed(Exception failure) {
            Attempt<T> a = current;
            if (a == null) {
                return;
            }
            if (a.receiptWritten) {
                inDoubt = null; // this attempt wrote the receipt: no earlier attempt committed
            }
            if (a.mark.reached() && tx.failures().lostConnection(failure)) {
                if (!withReceipt) {
                    throw new OutcomeInDoubtException(
                            operation + ": the connection was lost on COMMIT, so the transaction may have"
                                    + " committed; not run again. Create the receipt table ("
                                    + "baton.ownTables().createReceiptsTable(\"" + table + "\")) to"
                                    + " have Baton read such a commit back",
                            failure);
                }
                inDoubt = a;
            }
        }

        @Override
        public @Nullable RuntimeException exhausted(Exception failure) {
            return inDoubt == null
                    ? null
                    : new OutcomeInDoubtException(
                            operation + ": the reply to a COMMIT was lost and no later attempt could read its"
                                    + " receipt back; the transaction may have committed",
                            failure);
        }

        /** The call's answer from the attempt that ended the loop. */
        @Nullable
        T settle(Attempt<T> done) {
            if (done.foundCommitted) {
                Attempt<T> committed = inDoubt;
                if (committed == null) {
                    // no attempt of this call reached COMMIT: the receipt is another call's (a 64-bit collision)
                    throw new BatonException(operation + ": receipt " + receipt + " is taken");
                }
                log.info(
                        "{}: the reply to COMMIT was lost; its receipt shows it took effect, not running it again",
                        operation);
                committed.afterCommit.forEach(Runnable::run);
                if (!commitWait.off()) {
                    // the committing connection is gone: its commit's position is not known to this one
                    String why = "the reply to COMMIT was lost, so its position was not read";
                    commitWait.reportNotDurable(events, operation, why);
                    if (commitWait.required()) {
                        throw new CommitNotDurableException(operation, why, committed.result);
                    }
                }
                return committed.result;
            }
            if (done.notDurable != null) {
                commitWait.reportNotDurable(events, operation, done.notDurable);
                if (commitWait.required()) {
                    done.afterCommit.forEach(Runnable::run);
                    throw new CommitNotDurableException(operation, done.notDurable, done.result);
                }
            }
            done.afterCommit.forEach(Runnable::run);
            if (withReceipt) {
                purgeNowAndThen();
            }
            return done.result;
        }
    }

    /**
     * True when the receipt table answers; asked once, and again at most once a minute while it does not (so a table
     * created while the service runs is found).
     */
    public boolean present() {
        if (found) {
            return true;
        }
        long now = System.nanoTime();
        long probed = probedAt;
        if (probed != 0 && now - probed < PROBE_INTERVAL_NANOS) {
            return false;
        }
        probedAt = now == 0 ? 1 : now;
        try (Connection c = tx.connections().dataSource().getConnection()) {
            if (!c.getAutoCommit()) {
                c.setAutoCommit(true);
            }
            receipts.probe(c);
            found = true;
        } catch (SQLException e) {
            log.warn(
                    "no receipt table {} ({}): a transaction of Baton.inTransaction whose COMMIT reply is lost ends in"
                            + " OutcomeInDoubtException instead of being read back; create it with"
                            + " baton.ownTables().createReceiptsTable",
                    table,
                    e.getMessage());
        }
        return found;
    }

    /**
     * Deletes one batch of receipts older than an hour after a successful transaction, at most once a minute per
     * instance; while batches come back full, the next transaction deletes the next one. The caller pays for one
     * bounded batch at most, never for the whole backlog (after a start, or an hour of heavy use).
     */
    private void purgeNowAndThen() {
        long now = System.nanoTime();
        long last = purgedAt.get();
        if (now - last < PURGE_INTERVAL_NANOS || !purgedAt.compareAndSet(last, now)) {
            return;
        }
        try {
            String sql = receipts.deleteSql(RETENTION);
            int deleted = tx.autocommit("purge receipts", c -> Drain.deleteAtReadCommitted(c, sql));
            if (deleted >= receipts.deleteBatch()) {
                // more are left: the next transaction takes the next batch (unless another purge began meanwhile)
                purgedAt.compareAndSet(now, now - PURGE_INTERVAL_NANOS);
            }
        } catch (RuntimeException e) {
            log.warn("purging old receipts from {} failed; will try again: {}", table, e.getMessage());
        }
    }
}
