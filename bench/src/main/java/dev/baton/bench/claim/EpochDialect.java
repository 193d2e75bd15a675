package dev.baton.bench.claim;

import dev.baton.spi.BatchUpdate;
import dev.baton.spi.BatchUpdateSpec;
import dev.baton.spi.DatabaseInfo;
import dev.baton.spi.Diagnostics;
import dev.baton.spi.Dialect;
import dev.baton.spi.DialectTraits;
import dev.baton.spi.Notifications;
import dev.baton.spi.OwnTableDialect;
import dev.baton.spi.SqlVocabulary;
import dev.baton.spi.WriterEpoch;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.Optional;

/**
 * A bench-only dialect that answers {@link Diagnostics#epoch} its own way and is the delegate in everything else:
 * {@link #without} never asks the server (the claim of a sending queue then runs as it would with no epoch watch),
 * which is what the {@code epoch-read} workload sets against the dialect as shipped. Every other diagnostic, default
 * methods included, reaches the delegate's own object through a proxy, so nothing falls back to a default by being
 * forgotten here.
 */
final class EpochDialect implements Dialect {
    /** How the epoch is read on the claim's connection. */
    @FunctionalInterface
    interface EpochRead {
        /** The epoch, or empty. */
        Optional<String> read(Connection connection) throws SQLException;
    }

    private final Dialect delegate;
    private final String label;
    private final Diagnostics diagnostics;

    private EpochDialect(Dialect delegate, String label, EpochRead read) {
        this.delegate = delegate;
        this.label = label;
        this.diagnostics = replaced(delegate.diagnostics(), read);
    }

    /** {@code delegate} whose epoch is always empty, read without a round trip. */
    static EpochDialect without(Dialect delegate) {
        return new EpochDialect(delegate, "no-epoch", c -> Optional.empty());
    }

    /** {@code delegate} whose epoch is read by {@code read}. */
    static EpochDialect reading(Dialect delegate, String label, EpochRead read) {
        return new EpochDialect(delegate, label, read);
    }

    @Override
    public String name() {
        return delegate.name() + "+" + label;
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
        return delegate.sql();
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
        return diagnostics;
    }

    @Override
    public Notifications notifications() {
        return delegate.notifications();
    }

    /** {@code diagnostics} with {@code epoch(Connection)} answered by {@code read}; every other call goes to it. */
    private static Diagnostics replaced(Diagnostics diagnostics, EpochRead read) {
        InvocationHandler handler = (proxy, method, args) -> {
            if (method.getName().equals("epoch") && method.getParameterCount() == 1) {
                return read.read((Connection) args[0]);
            }
            if (method.getName().equals("writer") && method.getParameterCount() == 1) {
                return read.read((Connection) args[0]).map(e -> new WriterEpoch(e, false));
            }
            if (method.getDeclaringClass() == Object.class) {
                return switch (method.getName()) {
                    case "equals" -> proxy == args[0];
                    case "hashCode" -> System.identityHashCode(proxy);
                    default -> "epoch-replaced " + diagnostics;
                };
            }
            try {
                return method.invoke(diagnostics, args);
            } catch (InvocationTargetException e) {
                throw e.getCause();
            }
        };
        return (Diagnostics)
                Proxy.newProxyInstance(Diagnostics.class.getClassLoader(), new Class<?>[] {Diagnostics.class}, handler);
    }
}
