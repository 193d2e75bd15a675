package dev.baton.examples.balance;

import static dev.baton.examples.jooq.Tables.ACCOUNTS;
import static dev.baton.examples.jooq.Tables.PURCHASES;

import dev.baton.examples.support.ExampleMain;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.jooq.DSLContext;

/**
 * Seed 001 in one run: 200 purchases of two users, each request reaching two servers at once, paid by the naive
 * wallet and by Baton's; the daily reconciliation shows who lost money.
 *
 * <p>{@code java -cp examples/target/baton-demo.jar dev.baton.examples.balance.BalanceExample [--jdbc-url ...]}
 */
public final class BalanceExample {
    private BalanceExample() {}

    /** Runs the example. */
    public static void main(String[] args) {
        ExampleMain.main("Seed 001: balance deduction", args, BalanceExample::run);
    }

    /** The example's body. */
    public static void run(ExampleMain.Session s) throws Exception {
        DSLContext dsl = s.dsl();
        NaiveWallet naive = new NaiveWallet(dsl, BalanceExample::think);
        Wallet wallet = new Wallet(s.baton(), dsl, s.schema().table("purchases"));
        // users 1 and 2 pay the naive way, users 3 and 4 Baton's way; 50 purchases of 100 each from 10,000
        for (long user = 1; user <= 4; user++) {
            dsl.insertInto(ACCOUNTS, ACCOUNTS.USER_ID, ACCOUNTS.OPENING_BALANCE_CENTS, ACCOUNTS.BALANCE_CENTS)
                    .values(user, 10_000L, 10_000L)
                    .execute();
            for (int i = 0; i < 50; i++) {
                dsl.insertInto(PURCHASES, PURCHASES.ID, PURCHASES.USER_ID, PURCHASES.AMOUNT_CENTS, PURCHASES.STATUS)
                        .values(user * 1000 + i, user, 100L, PurchaseStatus.UNPAID.name())
                        .execute();
            }
        }
        ExecutorService servers = Executors.newFixedThreadPool(8);
        try {
            List<Future<PaymentResult>> calls = new ArrayList<>();
            for (int i = 0; i < 50; i++) {
                for (long user = 1; user <= 4; user++) {
                    long purchase = user * 1000 + i;
                    boolean naiveUser = user <= 2;
                    for (int copy = 0; copy < 2; copy++) {
                        calls.add(servers.submit(() -> naiveUser ? naive.pay(purchase) : wallet.pay(purchase)));
                    }
                }
            }
            for (Future<PaymentResult> f : calls) {
                f.get();
            }
        } finally {
            servers.shutdownNow();
        }
        for (long user = 1; user <= 4; user++) {
            s.out()
                    .printf(
                            "  user %d (%s): balance %,d, expected %,d%n",
                            user,
                            user <= 2 ? "naive" : "baton",
                            dsl.fetchValue(ACCOUNTS.BALANCE_CENTS, ACCOUNTS.USER_ID.eq(user)),
                            10_000 - 50 * 100);
        }
        List<Reconciliation.Finding> naiveFindings = Reconciliation.checkNaive(dsl).stream()
                .filter(f -> f.userId() <= 2)
                .toList();
        s.out().println("  reconciliation of the naive books (users 1 and 2): " + naiveFindings.size() + " findings");
        naiveFindings.stream().limit(4).forEach(f -> s.out().println("    " + f));
        List<Reconciliation.Finding> batonFindings =
                Reconciliation.check(dsl).stream().filter(f -> f.userId() > 2).toList();
        s.out().println("  reconciliation of Baton's books (users 3 and 4): " + batonFindings.size() + " findings");
    }

    /** What a request does between reading the balance and writing it (fetching prices, calling a risk check). */
    private static void think() {
        try {
            Thread.sleep(2);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
