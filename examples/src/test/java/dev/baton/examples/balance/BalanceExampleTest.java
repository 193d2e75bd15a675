package dev.baton.examples.balance;

import static dev.baton.examples.jooq.Tables.ACCOUNTS;
import static dev.baton.examples.jooq.Tables.BALANCE_LEDGER;
import static dev.baton.examples.jooq.Tables.NAIVE_BALANCE_LEDGER;
import static dev.baton.examples.jooq.Tables.PURCHASES;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.baton.examples.Fixture;
import dev.baton.testservers.TestServer;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BrokenBarrierException;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.jooq.DSLContext;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.MethodSource;

/** Seed 001 on each server: the naive wallet loses money, Baton's does not, and the reconciliation tells them apart. */
@ParameterizedClass(name = "{0}")
@MethodSource("dev.baton.examples.Servers#all")
class BalanceExampleTest {
    /** The server of this run. */
    @Parameter
    TestServer server;

    @Test
    void theNaiveWalletLosesAnUpdateAndChargesTwiceAndTheReconciliationSeesIt() throws Exception {
        try (Fixture f = Fixture.on(server)) {
            account(f.dsl, 1, 1_000);
            purchase(f.dsl, 11, 1, 100);
            purchase(f.dsl, 12, 1, 200);
            purchase(f.dsl, 13, 1, 300);
            CyclicBarrier bothRead = new CyclicBarrier(2);
            NaiveWallet naive = new NaiveWallet(f.dsl, () -> await(bothRead));
            // two purchases of one user at once: both read 1000, the second write overwrites the first
            assertEquals(
                    List.of(PaymentResult.PAID, PaymentResult.PAID),
                    together(() -> naive.pay(11), () -> naive.pay(12)));
            // one purchase handled by two servers at once: both see UNPAID, both debit
            assertEquals(
                    List.of(PaymentResult.PAID, PaymentResult.PAID),
                    together(() -> naive.pay(13), () -> naive.pay(13)));
            long balance = f.dsl.fetchValue(ACCOUNTS.BALANCE_CENTS);
            long ledger = f.dsl.fetch(NAIVE_BALANCE_LEDGER).stream()
                    .mapToLong(r -> r.getAmountCents())
                    .sum();
            assertEquals(-900, ledger, "the ledger shows 100 + 200 + 300 + 300");
            assertTrue(balance != 1_000 + ledger, "and the balance does not match it: " + balance);
            List<Reconciliation.Finding> findings = Reconciliation.checkNaive(f.dsl);
            assertTrue(findings.stream().anyMatch(x -> x.what().startsWith("balance ")), findings.toString());
            assertTrue(
                    findings.stream().anyMatch(x -> x.what().equals("purchase 13 has 2 debits")), findings.toString());
        }
    }

    @Test
    void batonsWalletDebitsEachPurchaseOnceUnderConcurrencyAndTheBooksBalance() throws Exception {
        try (Fixture f = Fixture.on(server)) {
            Wallet wallet = new Wallet(f.baton, f.dsl, f.table("purchases"));
            int users = 4;
            int perUser = 25;
            for (long u = 1; u <= users; u++) {
                account(f.dsl, u, 2_000); // 25 purchases of 100: the last 5 of each user are declined
                for (int i = 0; i < perUser; i++) {
                    purchase(f.dsl, u * 1000 + i, u, 100);
                }
            }
            ExecutorService pool = Executors.newFixedThreadPool(8);
            Map<PaymentResult, Integer> results = new EnumMap<>(PaymentResult.class);
            try {
                List<Future<PaymentResult>> futures = new ArrayList<>();
                for (int i = 0; i < perUser; i++) {
                    for (long u = 1; u <= users; u++) {
                        long id = u * 1000 + i;
                        for (int copy = 0; copy < 3; copy++) { // every request reaches three servers
                            futures.add(pool.submit(() -> wallet.pay(id)));
                        }
                    }
                }
                for (Future<PaymentResult> r : futures) {
                    results.merge(r.get(60, TimeUnit.SECONDS), 1, Integer::sum);
                }
            } finally {
                pool.shutdownNow();
            }
            // every copy of a request got the right answer: one PAID, two ALREADY_PAID; three DECLINED when too low
            assertEquals(
                    Map.of(
                            PaymentResult.PAID, users * 20,
                            PaymentResult.ALREADY_PAID, users * 40,
                            PaymentResult.DECLINED, users * 15),
                    results);
            assertEquals(users * 20, f.dsl.fetchCount(BALANCE_LEDGER), "one debit per paid purchase");
            assertEquals(users * 5, f.dsl.fetchCount(PURCHASES, PURCHASES.STATUS.eq("DECLINED")));
            for (long u = 1; u <= users; u++) {
                assertEquals(0L, f.dsl.fetchValue(ACCOUNTS.BALANCE_CENTS, ACCOUNTS.USER_ID.eq(u)), "user " + u);
            }
            assertEquals(List.of(), Reconciliation.check(f.dsl), "the books balance");
            assertEquals(PaymentResult.ALREADY_PAID, wallet.pay(1000));
            assertEquals(PaymentResult.NOT_FOUND, wallet.pay(99));
        }
    }

    static void account(DSLContext dsl, long userId, long cents) {
        dsl.insertInto(ACCOUNTS)
                .set(ACCOUNTS.USER_ID, userId)
                .set(ACCOUNTS.OPENING_BALANCE_CENTS, cents)
                .set(ACCOUNTS.BALANCE_CENTS, cents)
                .execute();
    }

    static void purchase(DSLContext dsl, long id, long userId, long cents) {
        dsl.insertInto(PURCHASES)
                .set(PURCHASES.ID, id)
                .set(PURCHASES.USER_ID, userId)
                .set(PURCHASES.AMOUNT_CENTS, cents)
                .set(PURCHASES.STATUS, PurchaseStatus.UNPAID.name())
                .execute();
    }

    private static void await(CyclicBarrier barrier) {
        try {
            barrier.await(10, TimeUnit.SECONDS);
        } catch (InterruptedException | BrokenBarrierException | TimeoutException e) {
            throw new IllegalStateException("the other request did not arrive", e);
        }
    }

    @SafeVarargs
    private static <T> List<T> together(java.util.concurrent.Callable<T>... calls) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(calls.length);
        try {
            List<Future<T>> futures = new ArrayList<>();
            for (java.util.concurrent.Callable<T> c : calls) {
                futures.add(pool.submit(c));
            }
            List<T> out = new ArrayList<>();
            for (Future<T> f : futures) {
                out.add(f.get(30, TimeUnit.SECONDS));
            }
            return out;
        } finally {
            pool.shutdownNow();
        }
    }
}
