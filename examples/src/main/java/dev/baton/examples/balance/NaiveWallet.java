package dev.baton.examples.balance;

import static dev.baton.examples.jooq.Tables.ACCOUNTS;
import static dev.baton.examples.jooq.Tables.NAIVE_BALANCE_LEDGER;
import static dev.baton.examples.jooq.Tables.PURCHASES;

import dev.baton.examples.jooq.tables.records.PurchasesRecord;
import org.jooq.DSLContext;

/**
 * Seed 001's bug, for comparison: check, then read the balance, compute, write it back, in a transaction at the
 * default isolation. Two requests for one purchase both see UNPAID and both debit; two purchases of one user both read
 * the same balance, and the second write overwrites the first (a lost update). The ledger has no unique key. Do not
 * copy this.
 */
public final class NaiveWallet {
    private final DSLContext dsl;
    private final Runnable afterRead;

    /**
     * @param dsl jOOQ on the database
     * @param afterRead runs between the reads and the writes (tests use it to line two requests up)
     */
    public NaiveWallet(DSLContext dsl, Runnable afterRead) {
        this.dsl = dsl;
        this.afterRead = afterRead;
    }

    /** Pays a purchase, the naive way. */
    public PaymentResult pay(long purchaseId) {
        return dsl.transactionResult(tx -> {
            PurchasesRecord p = tx.dsl().fetchOne(PURCHASES, PURCHASES.ID.eq(purchaseId));
            if (p == null) {
                return PaymentResult.NOT_FOUND;
            }
            if (!p.getStatus().equals(PurchaseStatus.UNPAID.name())) {
                return PaymentResult.ALREADY_PAID;
            }
            long balance = tx.dsl()
                    .select(ACCOUNTS.BALANCE_CENTS)
                    .from(ACCOUNTS)
                    .where(ACCOUNTS.USER_ID.eq(p.getUserId()))
                    .fetchSingle()
                    .value1();
            afterRead.run();
            if (balance < p.getAmountCents()) {
                tx.dsl()
                        .update(PURCHASES)
                        .set(PURCHASES.STATUS, PurchaseStatus.DECLINED.name())
                        .where(PURCHASES.ID.eq(purchaseId))
                        .execute();
                return PaymentResult.DECLINED;
            }
            tx.dsl()
                    .update(ACCOUNTS)
                    .set(ACCOUNTS.BALANCE_CENTS, balance - p.getAmountCents()) // computed from a stale read
                    .where(ACCOUNTS.USER_ID.eq(p.getUserId()))
                    .execute();
            tx.dsl()
                    .update(PURCHASES)
                    .set(PURCHASES.STATUS, PurchaseStatus.PAID.name())
                    .where(PURCHASES.ID.eq(purchaseId))
                    .execute();
            tx.dsl()
                    .insertInto(NAIVE_BALANCE_LEDGER)
                    .set(NAIVE_BALANCE_LEDGER.USER_ID, p.getUserId())
                    .set(NAIVE_BALANCE_LEDGER.PURCHASE_ID, purchaseId)
                    .set(NAIVE_BALANCE_LEDGER.ENTRY_TYPE, "DEBIT")
                    .set(NAIVE_BALANCE_LEDGER.AMOUNT_CENTS, -p.getAmountCents())
                    .execute();
            return PaymentResult.PAID;
        });
    }
}
