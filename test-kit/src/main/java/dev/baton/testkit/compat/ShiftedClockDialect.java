package dev.baton.testkit.compat;

import dev.baton.spi.BatchUpdate;
import dev.baton.spi.BatchUpdateSpec;
import dev.baton.spi.DatabaseInfo;
import dev.baton.spi.Diagnostics;
import dev.baton.spi.Dialect;
import dev.baton.spi.DialectTraits;
import dev.baton.spi.Notifications;
import dev.baton.spi.OwnTableDialect;
import dev.baton.spi.SqlVocabulary;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;

/**
 * A test-only dialect whose database clock runs {@code offsetMillis} ahead of the real one: every lease, due time
 * and expiry check of a Baton built on it is computed from {@code now + offset}, by the database. Advancing time is
 * building a new instance with a larger offset (SQL is rendered per Baton instance). The JVM clock is never read.
 *
 * <p>It changes one word of the vocabulary, {@link SqlVocabulary#currentTimestamp()}; every other part of the dialect
 * is the delegate's own object, and every other word of its vocabulary (default methods included) reaches the
 * delegate's vocabulary through a proxy, so nothing can fall back to a default by being forgotten here.
 */
public final class ShiftedClockDialect implements Dialect {
    private final Dialect delegate;
    private final long offsetMillis;
    private final SqlVocabulary sql;

    /** Wraps {@code delegate}, shifting its clock by {@code offsetMillis}. */
    public ShiftedClockDialect(Dialect delegate, long offsetMillis) {
        this.delegate = delegate;
        this.offsetMillis = offsetMillis;
        this.sql = shifted(delegate.sql(), offsetMillis);
    }

    /** The shift. */
    public long offsetMillis() {
        return offsetMillis;
    }

    @Override
    public String name() {
        return delegate.name() + "+" + offsetMillis + "ms";
    }

    @Override
    public boolean supports(DatabaseInfo info) {
        return false; // never chosen by detection
    }

    @Override
    public DialectTraits traits() {
        return delegate.traits();
    }

    @Override
    public SqlVocabulary sql() {
        return sql;
    }

    @Override
    public BatchUpdate batchUpdate(BatchUpdateSpec spec) {
        return delegate.batchUpdate(spec);
    }

    @Override
    public OwnTableDialect ownTables() {
        return delegate.ownTables();
    }

    @Override
    public Diagnostics diagnostics() {
        return delegate.diagnostics();
    }

    @Override
    public Notifications notifications() {
        return delegate.notifications();
    }

    /** {@code words} with {@code currentTimestamp()} shifted; every other call goes to {@code words} itself. */
    private static SqlVocabulary shifted(SqlVocabulary words, long offsetMillis) {
        String now = words.plusMillis(words.currentTimestamp(), offsetMillis);
        InvocationHandler handler = (proxy, method, args) -> {
            if (method.getName().equals("currentTimestamp") && method.getParameterCount() == 0) {
                return now;
            }
            if (method.getDeclaringClass() == Object.class) {
                return objectMethod(proxy, method, args, words);
            }
            try {
                return method.invoke(words, args);
            } catch (InvocationTargetException e) {
                throw e.getCause();
            }
        };
        return (SqlVocabulary) Proxy.newProxyInstance(
                SqlVocabulary.class.getClassLoader(), new Class<?>[] {SqlVocabulary.class}, handler);
    }

    private static Object objectMethod(Object proxy, Method method, Object[] args, SqlVocabulary words) {
        return switch (method.getName()) {
            case "equals" -> proxy == args[0];
            case "hashCode" -> System.identityHashCode(proxy);
            default -> "shifted " + words;
        };
    }
}
