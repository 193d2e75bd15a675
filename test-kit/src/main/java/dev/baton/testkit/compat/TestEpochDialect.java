package dev.baton.testkit.compat;

import dev.baton.spi.Diagnostics;
import dev.baton.spi.Dialect;
import dev.baton.spi.WriterEpoch;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;

/**
 * A server's own dialect whose writer's epoch is the test's: the failover tests turn it to make Baton see a new writer
 * without one (after making with plain SQL what a promotion leaves behind). Everything else is the server's dialect,
 * through a proxy, so nothing falls back to a default by being forgotten here: whether commits are synchronous is
 * still the server's answer. Never chosen by detection.
 */
public final class TestEpochDialect {
    private TestEpochDialect() {}

    /**
     * The dialect {@code real}, reporting {@code epoch}'s value as the writer's epoch.
     *
     * @param real the server's dialect
     * @param epoch the epoch; the test sets it
     * @return the dialect
     */
    public static Dialect of(Dialect real, AtomicReference<String> epoch) {
        return of(real, () -> Optional.of(epoch.get()));
    }

    /**
     * The dialect {@code real}, reporting what {@code epoch} returns as the writer's epoch (empty: the server reports
     * none).
     *
     * @param real the server's dialect
     * @param epoch asked on each reading of the epoch
     * @return the dialect
     */
    public static Dialect of(Dialect real, Supplier<Optional<String>> epoch) {
        Diagnostics diagnostics = (Diagnostics) Proxy.newProxyInstance(
                Diagnostics.class.getClassLoader(), new Class<?>[] {Diagnostics.class}, (proxy, method, args) -> {
                    if (method.getName().equals("epoch")) {
                        return epoch.get();
                    }
                    if (method.getName().equals("writer")) {
                        Optional<String> current = epoch.get();
                        if (current.isEmpty()) {
                            return Optional.empty();
                        }
                        // the epoch is the test's; whether commits are synchronous is the server's answer
                        Optional<?> read = (Optional<?>) invoke(real.diagnostics(), method, args);
                        return Optional.of(new WriterEpoch(
                                current.get(),
                                read.map(w -> ((WriterEpoch) w).synchronousCommits())
                                        .orElse(false)));
                    }
                    return invoke(real.diagnostics(), method, args);
                });
        return (Dialect) Proxy.newProxyInstance(
                Dialect.class.getClassLoader(), new Class<?>[] {Dialect.class}, (proxy, method, args) -> {
                    if (method.getName().equals("diagnostics")) {
                        return diagnostics;
                    }
                    if (method.getName().equals("supports")) {
                        return false;
                    }
                    return invoke(real, method, args);
                });
    }

    private static Object invoke(Object target, Method method, Object[] args) throws Throwable {
        try {
            return method.invoke(target, args);
        } catch (InvocationTargetException e) {
            throw e.getCause();
        }
    }
}
