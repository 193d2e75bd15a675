package dev.baton.spring.boot;

import java.util.function.BooleanSupplier;

/** Waiting in tests for what other threads (workers) do. */
final class Await {
    private Await() {}

    /** Returns once {@code condition} holds; fails after 30 s. */
    static void until(BooleanSupplier condition) {
        long deadline = System.nanoTime() + 30_000_000_000L;
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("not within 30 s");
            }
            sleep(50);
        }
    }

    static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }
}
