package dev.baton.examples.balance;

import static dev.baton.examples.jooq.Tables.ACCOUNTS;
import static dev.baton.examples.jooq.Tables.BALANCE_LEDGER;
import static dev.baton.examples.jooq.Tables.PURCHASES;

import dev.baton.Baton;
import dev.baton.StateTable;
import dev.baton.TransitionResult;
import dev.baton.examples.jooq.tables.records.PurchasesRecord;
import org.jooq.DSLContext;

/**
 * Seed 001 done right: a purchase is paid from a balance at most once, however many servers handle the request at
 * the same time, and concurrent purchases never overwrite each other's debit. One transaction holds three guards:
 *
 * <ol>
 *   <li>the guarded transition UNPAID → PAID on the purchase: only one request gets {@code Applied};
 *   <li>a relative, guarded debit {@code balance = balance - amount WHERE balance >= amount}: no read-modify-write;
 *   <li>the ledger entry under a unique {@code (user, purchase, type)} key: the last line of defence.
 * </ol>
 *
 * Thread-safe.
 */
public final class Wallet {
    private final DSLContext dsl;
    private final StateTable<PurchaseStatus> purchases;

    /**
     * @param baton Baton on the same database as {@code dsl}
     * @param dsl jOOQ on that database
     * @param purchasesTable the purchases table's name
     */
    public Wallet(Baton baton, DSLContext dsl, String purchasesTable) {
        this.dsl = dsl;
        this.purchases = baton.table(purchasesTable).id("id").state("status", PurchaseStatus.MACHINE);
    }

    /** Pays a purchase from its user's balance. */
    // tag::pay[]
    public PaymentResult pay(long purchaseId) {
        try {
            return dsl.transactionResult(tx -> tx.dsl().connectionResult(connection -> {
                // the transition first, before any read of the row (see the per-database notes on REPEATABLE READ)
                TransitionResult<PurchaseStatus> paid = purchases
                        .transition(purchaseId, PurchaseStatus.UNPAID, PurchaseStatus.PAID)
                        .setNow("paid_at")
                        .apply(connection); // in jOOQ's transaction; a duplicate request waits here, then loses
                if (paid instanceof TransitionResult.NotFound<PurchaseStatus>) {
                    return PaymentResult.NOT_FOUND;
                } else if (!paid.applied()) {
                    return paid.inTarget() ? PaymentResult.ALREADY_PAID : PaymentResult.DECLINED;
                }
                PurchasesRecord p = tx.dsl().fetchSingle(PURCHASES, PURCHASES.ID.eq(purchaseId)); // locked by us
                int debited = tx.dsl()
                        .update(ACCOUNTS)
                        .set(ACCOUNTS.BALANCE_CENTS, ACCOUNTS.BALANCE_CENTS.minus(p.getAmountCents()))
                        .where(ACCOUNTS.USER_ID.eq(p.getUserId()))
                        .and(ACCOUNTS.BALANCE_CENTS.ge(p.getAmountCents()))
                        .execute();
                if (debited == 0) {
                    throw new InsufficientBalance(); // rolls back the transition too
                }
                tx.dsl()
                        .insertInto(BALANCE_LEDGER)
                        .set(BALANCE_LEDGER.USER_ID, p.getUserId())
                        .set(BALANCE_LEDGER.PURCHASE_ID, purchaseId)
                        .set(BALANCE_LEDGER.ENTRY_TYPE, "DEBIT")
                        .set(BALANCE_LEDGER.AMOUNT_CENTS, -p.getAmountCents())
                        .execute(); // unique (user_id, purchase_id, entry_type)
                return PaymentResult.PAID;
            }));
        } catch (InsufficientBalance e) {
            TransitionResult<PurchaseStatus> declined = purchases
                    .transition(purchaseId, PurchaseStatus.UNPAID, PurchaseStatus.DECLINED)
                    .apply();
            return declined instanceof TransitionResult.Rejected<PurchaseStatus> r && r.current() == PurchaseStatus.PAID
                    ? PaymentResult.ALREADY_PAID // another request paid it meanwhile
                    : PaymentResult.DECLINED;
        }
    }
    // end::pay[]

    /** Thrown inside the transaction to roll it back. */
    private static final class InsufficientBalance extends RuntimeException {
        private static final long serialVersionUID = 1L;

        InsufficientBalance() {
            super("insufficient balance", null, false, false);
        }
    }
}
