package dev.baton;

import dev.baton.internal.Engine;
import dev.baton.internal.receipts.ReceiptGuard;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.Objects;

/**
 * Receipts that tell a transaction whose COMMIT reply was lost from one that never committed: the rule
 * {@link Baton#inTransaction} follows, for callers who run and retry their own transactions (Spring's
 * {@code @Transactional} with a retry template, jOOQ's {@code transaction}). Immutable and thread-safe; get one from
 * {@link Baton#receipts()}.
 *
 * <p>A retry after a lost connection cannot tell from the error whether the server committed: the COMMIT may have
 * taken effect and only its reply was lost. Running the work again then doubles every insert it makes. Instead, take
 * one receipt per logical call, {@link #record record} it first in every attempt's transaction, and stop when an
 * earlier attempt's transaction is found committed:
 *
 * <pre>{@code
 * long receipt = TransactionReceipts.newReceipt();                 // once per call, outside the retries
 * String reply = retry.invoke(() -> tx.execute(status -> {
 *     if (!baton.receipts().record(receipt)) {
 *         return "already done";                                   // an earlier attempt committed; its reply was lost
 *     }
 *     orders.transition(id, Payment.PENDING, Payment.PAID).apply();
 *     outbox.enqueue(Message.of("payment.paid", id.toString()));
 *     return "done";
 * }));
 * }</pre>
 *
 * <p>The receipt is a row in Baton's receipt table ({@link OwnTables#receiptsDdl}, default name {@code
 * baton_receipts}), committed or rolled back with the transaction that recorded it. Writing it waits for a
 * transaction that recorded the same receipt and has not ended yet, so a retry never overtakes the attempt it
 * follows. Baton deletes receipts older than an hour.
 */
public final class TransactionReceipts {
    private final Engine engine;

    TransactionReceipts(Engine engine) {
        this.engine = engine;
    }

    /**
     * A new random receipt (never 0), for one logical call: take it once, before the first attempt.
     *
     * @return the receipt
     */
    public static long newReceipt() {
        return ReceiptGuard.newReceipt();
    }

    /**
     * Records {@code receipt} in the transaction active on this thread: the host's ({@code @Transactional}, jOOQ) or
     * that of {@link Baton#inTransaction}. Thread-safe.
     *
     * @param receipt from {@link #newReceipt()}
     * @return true when this transaction now carries the receipt (no earlier transaction committed it: go on with the
     *     work); false when a committed transaction carries it already (an earlier attempt committed: do not run the
     *     work again)
     * @throws IllegalStateException if no transaction is active on this thread for this {@code Baton}'s data source
     * @throws DataAccessException if the statement fails (e.g. the receipt table does not exist)
     */
    public boolean record(long receipt) {
        if (!engine.tx().inHostTransaction()) {
            throw new IllegalStateException("a receipt is recorded in a transaction, and none is active on this thread"
                    + " for this Baton's data source");
        }
        return engine.tx()
                .joinOr(
                        "record receipt in " + engine.receipts().table(),
                        c -> {
                            try {
                                return engine.receipts().statements().insert(c, receipt);
                            } catch (SQLException e) {
                                throw new DataAccessException(
                                        "record receipt in " + engine.receipts().table() + " failed", e);
                            }
                        },
                        () -> {
                            throw new IllegalStateException("no transaction");
                        });
    }

    /**
     * Records {@code receipt} in the transaction open on {@code connection} (autocommit off), for callers who manage
     * their own JDBC transactions. Never commits. Thread-safe.
     *
     * @param connection a connection in a transaction
     * @param receipt from {@link #newReceipt()}
     * @return as {@link #record(long)}
     * @throws IllegalStateException if {@code connection} is in autocommit mode
     * @throws DataAccessException if the statement fails (e.g. the receipt table does not exist)
     */
    public boolean record(Connection connection, long receipt) {
        Objects.requireNonNull(connection, "connection");
        try {
            if (connection.getAutoCommit()) {
                throw new IllegalStateException("a receipt is recorded in a transaction; the connection is in"
                        + " autocommit mode, where it would commit alone");
            }
            return engine.receipts().statements().insert(connection, receipt);
        } catch (SQLException e) {
            throw new DataAccessException(
                    "record receipt in " + engine.receipts().table() + " failed", e);
        }
    }

    /**
     * The receipt table's name.
     *
     * @return the name given to {@link Baton.Builder#receiptsTable}, or {@code baton_receipts}
     */
    public String table() {
        return engine.receipts().table();
    }
}
