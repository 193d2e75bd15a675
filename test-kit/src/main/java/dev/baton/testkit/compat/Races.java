package dev.baton.testkit.compat;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

/** Runs many calls at once, released together, for the concurrency tests of the library-owned tables. */
final class Races {
    private Races() {}

    /** One call in a race. */
    @FunctionalInterface
    interface Call<T> {
        /** Runs call number {@code index}. */
        T call(int index) throws Exception;
    }

    /** Runs {@code n} calls at once and returns their results in order; any exception fails the caller. */
    static <T> List<T> run(int n, Call<T> call) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(n);
        try {
            CountDownLatch ready = new CountDownLatch(n);
            CountDownLatch go = new CountDownLatch(1);
            List<Future<T>> futures = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                int index = i;
                futures.add(pool.submit(() -> {
                    ready.countDown();
                    go.await();
                    return call.call(index);
                }));
            }
            ready.await(30, TimeUnit.SECONDS);
            go.countDown();
            List<T> out = new ArrayList<>();
            for (Future<T> f : futures) {
                out.add(f.get(120, TimeUnit.SECONDS));
            }
            return out;
        } finally {
            pool.shutdownNow();
        }
    }

    /** How many results are of {@code type}. */
    static long count(List<?> results, Class<?> type) {
        return results.stream().filter(type::isInstance).count();
    }
}
