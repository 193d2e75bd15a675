package dev.baton.internal;

import dev.baton.BatonInterceptor;
import dev.baton.BatonListener;
import dev.baton.RetryPolicy;
import dev.baton.internal.audit.FailoverAudit;
import dev.baton.internal.events.Events;
import dev.baton.internal.receipts.ReceiptGuard;
import dev.baton.internal.tables.ReceiptStatements;
import dev.baton.internal.tx.Connections;
import dev.baton.internal.tx.Failures;
import dev.baton.internal.tx.Transactions;
import dev.baton.internal.wake.Wakeups;
import dev.baton.spi.Dialect;
import dev.baton.spi.HostTransactions;
import dev.baton.spi.OwnTableDialect.OwnTable;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;

/**
 * The shared references of one {@code Baton} instance: its data source and dialect, the forms of a unit of work
 * ({@link #tx()}), the listeners ({@link #events()}), {@code inTransaction}'s receipts ({@link #receipts()}), the
 * wake-ups, the failover audit and the reader for inspection. Each piece is built here from the settings, never from
 * the engine. Thread-safe; its pieces are too.
 */
public final class Engine {
    /**
     * What one instance is built from: the writer (already {@link HostTransactions#target unwrapped} for {@code
     * hosts}), its dialect, the policy of transient failures, the listeners, the host transactions to join, the
     * interceptors (outermost first), {@code inTransaction}'s receipt table, the wake-ups across processes on or off
     * and their channel (a validated identifier), the reader where inspection may run (null: the writer; decisions
     * never run there), the failover audit's window (null: off) and the wait after the instance's own commits.
     */
    public record Settings(
            DataSource dataSource,
            Dialect dialect,
            RetryPolicy transientRetry,
            List<BatonListener> listeners,
            HostTransactions hosts,
            List<BatonInterceptor> interceptors,
            String receiptsTable,
            boolean crossProcessWakeups,
            String wakeupChannel,
            @Nullable DataSource reader,
            @Nullable Duration failoverAudit,
            CommitWait commitWait) {
        /** The defaults of {@code Baton.Builder} on {@code dataSource}, joining no host transaction. */
        public static Settings of(DataSource dataSource, Dialect dialect) {
            return new Settings(
                    dataSource,
                    dialect,
                    RetryPolicy.transientDefault(),
                    List.of(),
                    HostTransactions.NONE,
                    List.of(),
                    OwnTable.RECEIPTS.defaultName(),
                    false,
                    Wakeups.DEFAULT_CHANNEL,
                    null,
                    null,
                    CommitWait.OFF);
        }

        /** These settings with {@code policy} for transient failures and {@code listeners}. */
        public Settings retrying(RetryPolicy policy, List<BatonListener> listeners) {
            return new Settings(
                    dataSource,
                    dialect,
                    policy,
                    listeners,
                    hosts,
                    interceptors,
                    receiptsTable,
                    crossProcessWakeups,
                    wakeupChannel,
                    reader,
                    failoverAudit,
                    commitWait);
        }
    }

    private final DataSource dataSource;
    private final Dialect dialect;
    private final List<BatonInterceptor> interceptors;
    private final CommitWait commitWait;
    private final Transactions tx;
    private final Events events;
    private final ReceiptGuard receipts;
    private final Wakeups wakeups;
    private final FailoverAudit audit;
    private final Engine reader;

    /** The instance of {@code settings}; the failover audit's thread, when it is on, starts here. */
    public Engine(Settings settings) {
        this(settings, false);
    }

    /** A reader's engine only inspects: it wakes nobody, listens to nothing, joins nothing and never asks for writes. */
    private Engine(Settings s, boolean readsOnly) {
        this.dataSource = Objects.requireNonNull(s.dataSource(), "dataSource");
        this.dialect = Objects.requireNonNull(s.dialect(), "dialect");
        this.interceptors = List.copyOf(s.interceptors());
        this.commitWait = Objects.requireNonNull(s.commitWait(), "commitWait");
        this.events = new Events(s.listeners(), s.hosts(), dataSource);
        Failures failures = new Failures(dialect.diagnostics(), s.transientRetry());
        Connections connections = new Connections(
                dataSource, dialect.diagnostics(), failures, dialect.traits().isolationPerTransaction(), readsOnly);
        this.tx = new Transactions(
                dialect.name(),
                dialect.traits(),
                s.hosts(),
                failures,
                connections,
                (operation, attempt, e) -> events.fireNow(l -> l.onTransientRetry(operation, attempt, e)));
        this.receipts = new ReceiptGuard(
                tx,
                dialect.diagnostics(),
                events,
                commitWait,
                s.receiptsTable(),
                new ReceiptStatements(dialect, s.receiptsTable()));
        this.wakeups =
                new Wakeups(dataSource, dialect, s.hosts(), s.crossProcessWakeups() && !readsOnly, s.wakeupChannel());
        this.audit = new FailoverAudit(tx, dialect, events, readsOnly ? null : s.failoverAudit());
        // a reader keeps the writer's retry policy; no receipts, wake-ups, listeners or audit are used on it
        this.reader = s.reader() == null
                ? this
                : new Engine(Settings.of(s.reader(), dialect).retrying(s.transientRetry(), List.of()), true);
    }

    /**
     * Where inspection reads (health, gauges, dead-letter lists): the reader data source given to the builder, or this
     * engine. A reader may be a standby that lags the writer; nothing Baton decides with is read there.
     */
    public Engine reader() {
        return reader;
    }

    /** The data source. */
    public DataSource dataSource() {
        return dataSource;
    }

    /** The dialect. */
    public Dialect dialect() {
        return dialect;
    }

    /** The forms of a unit of work on the data source, and their one retry loop. */
    public Transactions tx() {
        return tx;
    }

    /** The listeners. */
    public Events events() {
        return events;
    }

    /** {@code Baton.inTransaction} and its receipts. */
    public ReceiptGuard receipts() {
        return receipts;
    }

    /** The interceptors, outermost first. */
    public List<BatonInterceptor> interceptors() {
        return interceptors;
    }

    /** The wake-ups of idle workers. */
    public Wakeups wakeups() {
        return wakeups;
    }

    /** The failover audit of applied transitions (records nothing when off). */
    public FailoverAudit audit() {
        return audit;
    }

    /** What this instance waits for after its own commits ({@code Baton.Builder.commitDurability}). */
    public CommitWait commitWait() {
        return commitWait;
    }
}
