package dev.baton;

import dev.baton.internal.CommitWait;
import dev.baton.internal.Dialects;
import dev.baton.internal.Engine;
import dev.baton.internal.HostLookup;
import dev.baton.internal.values.Identifiers;
import dev.baton.internal.wake.Wakeups;
import dev.baton.spi.Dialect;
import dev.baton.spi.HostTransactions;
import dev.baton.spi.OwnTableDialect.OwnTable;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import javax.sql.DataSource;

/**
 * The entry point: Baton over one {@link DataSource}. Immutable and thread-safe; make one per data source and share
 * it.
 *
 * <pre>{@code
 * Baton baton = Baton.using(dataSource);   // finds the dialect from the connection
 * StateTable<Payment> orders = baton.table("orders").id("id").state("payment_status", payment);
 * TransitionResult<Payment> r = orders.transition(orderId, Payment.PENDING, Payment.PAID)
 *     .set("payment_transaction_id", txId)
 *     .setNow("paid_at")
 *     .apply();
 * }</pre>
 *
 * <p><b>Host transactions.</b> Every data-source operation first asks the {@link HostTransactions} found with
 * {@link java.util.ServiceLoader} (for example {@code baton-spring}'s, for {@code @Transactional} and
 * {@code TransactionTemplate}) whether the calling thread has a transaction open on this data source. If so, the
 * operation joins it: its statements run on that transaction's connection, it never commits, rolls back or retries
 * there, and listeners are called after that transaction commits (never if it rolls back). If not, the operation runs
 * in a transaction of its own, committed and retried on transient failures. Worker threads, heartbeats and DDL
 * ({@link OwnTables}) always run their own.
 */
public final class Baton {
    private final Engine engine;

    private Baton(Engine engine) {
        this.engine = engine;
    }

    /**
     * Baton with default settings; connects once to find the dialect.
     *
     * @throws UnsupportedDatabaseException if no dialect on the class path supports the database
     * @throws DataAccessException if the data source cannot connect
     */
    public static Baton using(DataSource dataSource) {
        return builder(dataSource).build();
    }

    /** Starts a configuration. */
    public static Builder builder(DataSource dataSource) {
        return new Builder(Objects.requireNonNull(dataSource, "dataSource"));
    }

    /** The dialect in use. */
    public Dialect dialect() {
        return engine.dialect();
    }

    /**
     * True when {@code failure} or one of its causes is a driver exception this database reports for a failure that a
     * new attempt of the whole transaction may not meet: deadlock, serialization failure, lock timeout, lost
     * connection. For callers who run and retry their own transactions (Baton retries its own), e.g. as the
     * predicate of a retry policy around a host transaction. Looks through causes and suppressed exceptions, and
     * through what a framework throws when the rollback after the failure fails too: Spring then throws the rollback's
     * failure in place of the original (keeping it as {@code TransactionSystemException.getApplicationException()},
     * which is read, or only logging it, under {@code JpaTransactionManager}), and a rollback that failed because the
     * pool had closed the connection ("Connection is closed", without an SQLState) counts as a lost connection: the
     * transaction never committed and the server rolled it back. Thread-safe.
     *
     * @param failure any exception, e.g. a {@link DataAccessException} or Spring's {@code DataAccessException}; null
     *     gives false
     */
    public boolean isTransient(Throwable failure) {
        return engine.tx().failures().retryable(failure);
    }

    /**
     * Runs {@code work} in one transaction on a connection of Baton's own and commits it; retries the whole
     * transaction (after a rollback) when it fails {@link #isTransient transiently}, as
     * {@link Builder#transientRetry} allows. Data-source operations of this {@code Baton} called inside, on this thread,
     * join the transaction, and their listener calls wait for its commit. Inside a host transaction (see the class
     * comment), runs {@code work} once on the host's connection: only the host can retry its transaction. Thread-safe.
     *
     * <p>A transaction whose COMMIT reply was lost (the connection broke after the server may have committed) is never
     * run blind again. Each attempt first writes the call's {@linkplain TransactionReceipts receipt} to the receipt
     * table ({@link Builder#receiptsTable}); the retry finds it when the lost COMMIT took effect and returns what that
     * attempt's {@code work} returned, with its listener calls, without running {@code work} again. Without the receipt
     * table (looked for once, then at most once a minute) a lost COMMIT throws {@link OutcomeInDoubtException}: one
     * insert more per transaction buys a certain answer.
     *
     * <pre>{@code
     * TransitionResult<Payment> r = baton.inTransaction(c -> {
     *     TransitionResult<Payment> t = orders.transition(id, Payment.PENDING, Payment.PAID).apply();
     *     outbox.enqueue(Message.of("payment.paid", id.toString()));   // same transaction
     *     return t;
     * });
     * }</pre>
     *
     * @param work runs once per attempt; must not commit, roll back or keep the connection
     * @return what the attempt of {@code work} that committed returned
     * @throws DataAccessException on a failure that is not transient, or one that outlasted the retries
     * @throws OutcomeInDoubtException if the reply to a COMMIT was lost and no receipt could settle whether it took
     *     effect
     * @throws RuntimeException what {@code work} threw (the transaction is rolled back)
     */
    public <T> T inTransaction(TransactionWork<T> work) {
        Objects.requireNonNull(work, "work");
        return engine.receipts().inTransaction("transaction", work::run);
    }

    /**
     * Names a host table ({@code table} or {@code schema.table}) to bind states to. The name is validated now and
     * quoted in every statement.
     *
     * @throws InvalidIdentifierException if the name is not a plain identifier
     */
    public HostTable table(String name) {
        return new HostTable(engine, name, "id");
    }

    /**
     * Starts the definition of a claim queue named {@code name} (used in log and exception messages, listener calls and idempotency keys).
     *
     * @throws ConfigurationException if the name is blank or longer than 100 characters
     */
    public <S extends Enum<S>> ClaimQueueBuilder<S> queue(String name) {
        return new ClaimQueueBuilder<>(engine, name);
    }

    /** Starts the configuration of a worker that processes {@code queue} with a handler. */
    public <S extends Enum<S>> Worker.Builder<S> worker(ClaimQueue<S> queue) {
        return new Worker.Builder<>(java.util.Objects.requireNonNull(queue, "queue"));
    }

    /**
     * Idempotency keys in {@code table} ({@code table} or {@code schema.table}; default name
     * {@link IdempotencyKeys#DEFAULT_TABLE}), with {@link IdempotencyKeys.Options#defaults()}. Connects once on MySQL
     * and MariaDB to check that values are stored exactly (strict {@code sql_mode}), and once more there to check that
     * an existing table has the upgrade file {@code V4__baton_idempotency_keys_utc_datetime.sql}.
     *
     * @throws InvalidIdentifierException if the name is not a plain identifier
     * @throws ConfigurationException if the database would not store values exactly
     * @throws SchemaMismatchException if the existing table lacks that upgrade, naming the file
     */
    public IdempotencyKeys idempotencyKeys(String table) {
        return new IdempotencyKeys(engine, table, IdempotencyKeys.Options.defaults());
    }

    /**
     * Idempotency keys in {@code table} with the given options (lease, retention, limits); checked as {@link
     * #idempotencyKeys(String)} checks.
     *
     * @throws InvalidIdentifierException if the name is not a plain identifier
     * @throws ConfigurationException if the database would not store values exactly
     * @throws SchemaMismatchException if the existing table lacks that upgrade, naming the file
     */
    public IdempotencyKeys idempotencyKeys(String table, IdempotencyKeys.Options options) {
        return new IdempotencyKeys(engine, table, java.util.Objects.requireNonNull(options, "options"));
    }

    /**
     * An inbox in {@code table} ({@code table} or {@code schema.table}; default name {@link Inbox#DEFAULT_TABLE}).
     * Connects once on MySQL and MariaDB, to check that an existing table has the upgrade file {@code
     * V5__baton_inbox_utc_datetime.sql}.
     *
     * @throws InvalidIdentifierException if the name is not a plain identifier
     * @throws SchemaMismatchException if the existing table lacks that upgrade, naming the file
     */
    public Inbox inbox(String table) {
        return new Inbox(engine, table);
    }

    /**
     * The transaction receipts: how a caller's own retry tells a transaction whose COMMIT reply was lost from one that
     * never committed (what {@link #inTransaction} does by itself).
     */
    public TransactionReceipts receipts() {
        return new TransactionReceipts(engine);
    }

    /** Baton's own tables (idempotency keys, inbox, outbox, receipts): their DDL, and a helper that creates them. */
    public OwnTables ownTables() {
        return new OwnTables(engine);
    }

    /**
     * The transactional outbox in {@code table} with default {@link Outbox.Options}. On MySQL and MariaDB this
     * connects once to check strict mode, and once to check that an existing table has the upgrade file {@code
     * V6__baton_outbox_utc_datetime.sql}.
     *
     * @throws ConfigurationException if the database would silently truncate payloads
     * @throws SchemaMismatchException if the existing table lacks that upgrade, naming the file
     */
    public Outbox outbox(String table) {
        return new Outbox(engine, table, Outbox.Options.defaults());
    }

    /**
     * The transactional outbox in {@code table} with the given options; checked as {@link #outbox(String)} checks.
     *
     * @throws ConfigurationException if the database would silently truncate payloads
     * @throws SchemaMismatchException if the existing table lacks that upgrade, naming the file
     */
    public Outbox outbox(String table, Outbox.Options options) {
        return new Outbox(engine, table, options);
    }

    /** Collects settings for a {@link Baton}. Not thread-safe; {@link #build()} snapshots them. */
    public static final class Builder {
        private final DataSource dataSource;
        private Dialect dialect;
        private RetryPolicy transientRetry = RetryPolicy.transientDefault();
        private final List<BatonListener> listeners = new ArrayList<>();
        private final List<BatonInterceptor> interceptors = new ArrayList<>();
        private List<HostTransactions> hostTransactions;
        private String receiptsTable = OwnTable.RECEIPTS.defaultName();
        private boolean crossProcessWakeups;
        private String wakeupChannel = Wakeups.DEFAULT_CHANNEL;
        private DataSource reader;
        private java.time.Duration failoverAudit;
        private CommitWait commitWait = CommitWait.OFF;

        private Builder(DataSource dataSource) {
            this.dataSource = dataSource;
        }

        /** Uses this dialect instead of detecting one from the connection. */
        public Builder dialect(Dialect dialect) {
            this.dialect = Objects.requireNonNull(dialect, "dialect");
            return this;
        }

        /**
         * How operations on the data source retry transient failures (deadlock, serialization failure, lost
         * connection). Default {@link RetryPolicy#transientDefault()}. A lost write conflict that the dialect tells
         * apart ({@link dev.baton.spi.SqlError.Kind#CONFLICT}: a MySQL or MariaDB deadlock, also a Galera
         * certification failure) gets four times the policy's attempts, with full jitter (a policy of one attempt
         * still makes one). Operations on a caller's connection never retry.
         */
        public Builder transientRetry(RetryPolicy policy) {
            this.transientRetry = Objects.requireNonNull(policy, "policy");
            return this;
        }

        /**
         * A data source for inspection only: {@link ClaimQueue#health()} (and the gauges built on it) and the counts
         * and lists of the admin views ({@link ClaimQueue#deadLetters()}: {@code list}, {@code count}) read there,
         * for example from a streaming standby,
         * so that dashboards do not load the writer. Decisions (claims, transitions, guards, completions, sweeps,
         * requeues) never run on it, and the send durability detail of {@code health()} is read on the writer. Its
         * answers may lag the writer by the replication delay. Default: none (inspection reads the main data source).
         */
        public Builder reader(DataSource reader) {
            this.reader = Objects.requireNonNull(reader, "reader");
            return this;
        }

        /** Adds a listener; listeners run in the order added. */
        public Builder listener(BatonListener listener) {
            listeners.add(Objects.requireNonNull(listener, "listener"));
            return this;
        }

        /**
         * Adds an interceptor around every claim and handler call and every outbox enqueue of this instance (tracing,
         * context propagation); interceptors run in the order added, the first outermost.
         */
        public Builder interceptor(BatonInterceptor interceptor) {
            interceptors.add(Objects.requireNonNull(interceptor, "interceptor"));
            return this;
        }

        /**
         * Joins the transactions {@code hosts} finds instead of those of the implementations registered with
         * {@link java.util.ServiceLoader} (the default). {@link HostTransactions#NONE} makes every operation run in a
         * transaction of its own.
         */
        public Builder hostTransactions(HostTransactions hosts) {
            this.hostTransactions = List.of(Objects.requireNonNull(hosts, "hosts"));
            return this;
        }

        /**
         * The table of the transaction receipts {@link Baton#inTransaction} and {@link Baton#receipts()} write
         * ({@code table} or {@code schema.table}). Default {@code baton_receipts}; create it with {@link
         * OwnTables#createReceiptsTable} or the dialect's {@code V8__baton_receipts.sql}. Without it,
         * {@code inTransaction} throws {@link OutcomeInDoubtException} when the reply to its COMMIT is lost.
         *
         * @throws InvalidIdentifierException if the name is not a plain identifier
         */
        public Builder receiptsTable(String table) {
            Identifiers.splitTable(Objects.requireNonNull(table, "table")); // validates
            this.receiptsTable = table;
            return this;
        }

        /**
         * Whether workers in other processes are woken by notifications where the database has them (PostgreSQL's
         * {@code LISTEN}/{@code NOTIFY}). Default false (opt in): behind a pooler in transaction mode a {@code LISTEN}
         * stays on whichever server session ran it, which later serves other clients. When on, every operation that makes rows claimable for a queue
         * built in this JVM sends one {@code pg_notify} per queue in its transaction (one statement more), and an
         * instance with running workers holds one connection of the data source to listen on. Off: no notification is
         * sent or listened for; workers are still woken by commits in their own JVM, and poll. A data source behind
         * PgBouncer in transaction mode delivers no notification: the listener finds that out at its start, warns and
         * stops, and the workers poll; turn this off there, or give the workers' instance a direct data source.
         */
        public Builder crossProcessWakeups(boolean enabled) {
            this.crossProcessWakeups = enabled;
            return this;
        }

        /**
         * The channel of the wake-up notifications (default {@code baton_wakeups}); instances that should wake each
         * other use the same one.
         *
         * @throws InvalidIdentifierException if the name is not a plain identifier
         */
        public Builder wakeupChannel(String channel) {
            Identifiers.check(Objects.requireNonNull(channel, "channel"));
            this.wakeupChannel = channel;
            return this;
        }

        /**
         * Audits this instance's transitions across failovers: every transition it applies and acknowledges
         * ({@link Transition#apply()}, {@link Outbox#transitionAndEnqueue}, in autocommit mode, in {@link
         * Baton#inTransaction}, or in a host transaction it joins, there once the host's transaction committed) is
         * kept for {@code window}; a daemon thread ({@code baton-failover-audit}) reads the writer's epoch ({@link
         * dev.baton.spi.Diagnostics#epoch}; PostgreSQL: its timeline) about once a second. When the epoch changes (a
         * failover), the kept rows are looked up on the new writer: those back in a source state of their transition
         * lost it with the old writer, whose acknowledgement said otherwise. Listeners hear {@link
         * BatonListener#onTransitionsInDoubt} once per table (with the ids, at most {@link
         * TransitionsInDoubt#MAX_IDS}); {@code baton-micrometer} counts {@code baton.transitions.in.doubt}. Default:
         * off (nothing kept, no thread).
         *
         * <p>Cost: one epoch read per second on a pooled connection (a round trip, {@code pg_walfile_name(
         * pg_current_wal_insert_lsn())} on PostgreSQL); about 60 bytes of heap per transition kept (estimated), at most {@link
         * TransitionsInDoubt#MAX_TRACKED} per table (the oldest go first, counted as untracked); on an epoch change,
         * one {@code SELECT} per 500 kept rows. Where the database reports no epoch ({@code Diagnostics.epoch} empty)
         * the thread ends after its first three reads and nothing is kept.
         *
         * <p>What it cannot see: transitions of another process, or of a process that ended with the old writer (the
         * record is in this instance's memory); transitions applied with {@link Transition#apply(java.sql.Connection)}
         * on a caller's connection (Baton does not see that transaction commit); a transition older than the window
         * when the change is seen. A row another process moved back to a source state after the transition is
         * reported too. Set the window above the replication lag a failover may lose plus the time to notice it.
         *
         * @param window how long an applied transition is kept, 1 s to 1 h (e.g. 60 s)
         * @throws ConfigurationException if the window is outside 1 s to 1 h
         */
        public Builder failoverAudit(java.time.Duration window) {
            Objects.requireNonNull(window, "window");
            if (window.compareTo(java.time.Duration.ofSeconds(1)) < 0
                    || window.compareTo(java.time.Duration.ofHours(1)) > 0) {
                throw new ConfigurationException("failoverAudit window must be 1 s to 1 h, was " + window);
            }
            this.failoverAudit = window;
            return this;
        }

        /**
         * Makes Baton's own commits of transitions wait, on the connection that committed, until a standby has them
         * ({@link CommitDurability}): {@link Transition#apply()}, {@link Outbox#transitionAndEnqueue(Transition,
         * Message)} and {@link Baton#inTransaction} on the data source. When no standby has the commit within {@code
         * maxWait}: {@code WARN} logs, calls {@link BatonListener#onCommitNotDurable} and answers as usual;
         * {@code REQUIRE} does the same, then answers {@link TransitionResult.InDoubt} (a result in the target state:
         * applied on the writer, not known durable) or throws {@link CommitNotDurableException} from {@code
         * inTransaction}. A transition that did not reach its target (rejected, not found, a conflict) waits for
         * nothing. Default {@code OFF}.
         *
         * <p>Not covered: work in a host transaction (Spring's {@code @Transactional}, a jOOQ transaction, {@code
         * apply(connection)}): it commits outside Baton, on a connection Baton no longer holds, so its durability is
         * the host's business (e.g. PostgreSQL's {@code synchronous_commit} with {@code synchronous_standby_names}).
         * Operations inside {@code inTransaction} wait once, at its commit.
         *
         * <p>Cost: two more round trips per commit (the log position, then the standbys; more while waiting) and the
         * standby's lag, a few milliseconds for an asynchronous standby (see the transitions guide for measurements).
         * Needs a database user that can read the standbys' progress; without a standby or that right, every commit
         * is not known durable.
         *
         * <pre>{@code
         * Baton baton = Baton.using(dataSource)
         *         .commitDurability(CommitDurability.REQUIRE, Duration.ofMillis(500))
         *         .build();
         * }</pre>
         *
         * @param policy what to do when no standby has a commit in time
         * @param maxWait how long to wait for a standby, 1 ms to 1 min
         * @throws ConfigurationException if {@code maxWait} is outside 1 ms to 1 min
         */
        public Builder commitDurability(CommitDurability policy, java.time.Duration maxWait) {
            Objects.requireNonNull(policy, "policy");
            Objects.requireNonNull(maxWait, "maxWait");
            if (maxWait.compareTo(java.time.Duration.ofMillis(1)) < 0
                    || maxWait.compareTo(java.time.Duration.ofMinutes(1)) > 0) {
                throw new ConfigurationException("commitDurability maxWait must be 1 ms to 1 min, was " + maxWait);
            }
            this.commitWait = new CommitWait(policy, maxWait);
            return this;
        }

        /**
         * Builds the instance: unwraps the data source as the {@link HostTransactions} ask (e.g. Spring's
         * {@code TransactionAwareDataSourceProxy} to its target), then detects the dialect if none was set.
         *
         * @throws UnsupportedDatabaseException if no dialect supports the database
         */
        public Baton build() {
            HostLookup hosts = HostLookup.of(hostTransactions != null ? hostTransactions : HostLookup.discovered());
            DataSource target = Objects.requireNonNull(hosts.target(dataSource), "target data source");
            Dialect d = dialect != null ? dialect : Dialects.detect(target);
            Identifiers.quote(d, wakeupChannel); // within the database's identifier length, before any SQL
            Engine engine = new Engine(new Engine.Settings(
                    target,
                    d,
                    transientRetry,
                    listeners,
                    hosts,
                    interceptors,
                    receiptsTable,
                    crossProcessWakeups,
                    wakeupChannel,
                    reader,
                    failoverAudit,
                    commitWait));
            return new Baton(engine);
        }
    }
}
