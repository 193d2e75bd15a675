package dev.baton.examples.balance;

import static dev.baton.examples.jooq.Tables.ACCOUNTS;
import static dev.baton.examples.jooq.Tables.BALANCE_LEDGER;
import static dev.baton.examples.jooq.Tables.NAIVE_BALANCE_LEDGER;
import static dev.baton.examples.jooq.Tables.PURCHASES;
import static org.jooq.impl.DSL.coalesce;
import static org.jooq.impl.DSL.count;
import static org.jooq.impl.DSL.select;
import static org.jooq.impl.DSL.sum;

import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;
import org.jooq.DSLContext;
import org.jooq.Field;
import org.jooq.Record;
import org.jooq.Table;
import org.jooq.TableField;

/**
 * The daily reconciliation of seed 001: every balance equals its opening balance plus its ledger entries, and every
 * PAID purchase has exactly one debit. Returns what does not add up; an empty report means the books balance.
 */
public final class Reconciliation {
    private Reconciliation() {}

    /**
     * One discrepancy.
     *
     * @param userId the user (or the purchase's user)
     * @param what what is wrong
     */
    public record Finding(long userId, String what) {}

    /** Reconciles the accounts against {@code balance_ledger} (the {@link Wallet}'s books). */
    public static List<Finding> check(DSLContext dsl) {
        return check(
                dsl, BALANCE_LEDGER, BALANCE_LEDGER.USER_ID, BALANCE_LEDGER.PURCHASE_ID, BALANCE_LEDGER.AMOUNT_CENTS);
    }

    /** Reconciles the accounts against {@code naive_balance_ledger} (the {@link NaiveWallet}'s books). */
    public static List<Finding> checkNaive(DSLContext dsl) {
        return check(
                dsl,
                NAIVE_BALANCE_LEDGER,
                NAIVE_BALANCE_LEDGER.USER_ID,
                NAIVE_BALANCE_LEDGER.PURCHASE_ID,
                NAIVE_BALANCE_LEDGER.AMOUNT_CENTS);
    }

    // tag::reconciliation[]
    private static <R extends Record> List<Finding> check(
            DSLContext dsl,
            Table<R> ledger,
            TableField<R, Long> userId,
            TableField<R, Long> purchaseId,
            TableField<R, Long> amount) {
        Field<BigDecimal> entries = coalesce(
                select(sum(amount))
                        .from(ledger)
                        .where(userId.eq(ACCOUNTS.USER_ID))
                        .asField(),
                BigDecimal.ZERO);
        List<Finding> balances = dsl.select(
                        ACCOUNTS.USER_ID, ACCOUNTS.OPENING_BALANCE_CENTS, ACCOUNTS.BALANCE_CENTS, entries)
                .from(ACCOUNTS)
                .where(ACCOUNTS.OPENING_BALANCE_CENTS.plus(entries).ne(ACCOUNTS.BALANCE_CENTS))
                .fetch(r -> new Finding(
                        r.value1(),
                        "balance " + r.value3() + " but opening " + r.value2() + " + ledger " + r.value4()));
        Field<Integer> debits =
                select(count()).from(ledger).where(purchaseId.eq(PURCHASES.ID)).asField();
        List<Finding> purchases = dsl.select(PURCHASES.USER_ID, PURCHASES.ID, debits)
                .from(PURCHASES)
                .where(PURCHASES.STATUS.eq(PurchaseStatus.PAID.name()).and(debits.ne(1)))
                .fetch(r -> new Finding(r.value1(), "purchase " + r.value2() + " has " + r.value3() + " debits"));
        List<Finding> all = new ArrayList<>(balances);
        all.addAll(purchases);
        return all;
    }
    // end::reconciliation[]
}
