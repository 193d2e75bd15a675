package dev.baton.console;

import com.sun.net.httpserver.HttpHandler;
import dev.baton.ClaimQueue;
import dev.baton.ConfigurationException;
import dev.baton.Outbox;
import dev.baton.Worker;
import dev.baton.console.internal.AuditTable;
import dev.baton.console.internal.ConsoleApp;
import dev.baton.console.internal.Csrf;
import dev.baton.console.internal.JdkHandler;
import dev.baton.console.internal.QueueAdmin;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;
import org.slf4j.LoggerFactory;

/**
 * An operations console for the queues and the outbox of one Baton instance: one server-rendered page with each
 * queue's eligible, waiting, in-flight, expired, dead and unknown rows, the age of the oldest eligible row and a
 * backlog chart; per queue, paged tables of dead letters and unknown sends; and, in operate mode, the actions an
 * operator needs at 2 a.m.: requeue one dead row, requeue a bounded number, resolve an unknown send with the evidence
 * typed in, pause and resume the queue's workers in this process.
 *
 * <pre>{@code
 * BatonConsole console = BatonConsole.builder()
 *     .queue(syncQueue).outbox(outbox).worker(syncWorker)
 *     .authenticator(request -> users.fromSession(request.cookie("SESSION")))   // the host's users and roles
 *     .operate(true)
 *     .build();
 * HttpServer server = HttpServer.create(new InetSocketAddress(8081), 0);
 * server.createContext("/baton/", console.httpHandler());
 * server.start();
 * }</pre>
 *
 * <p>Security: every request goes to the host's {@link ConsoleAuthenticator} (no user: 401 and nothing shown);
 * {@link ConsolePermission#READ} sees, {@link ConsolePermission#OPERATE} acts. Actions are POST requests that carry
 * the session's CSRF token and go through a confirmation page whose one-time action id runs the action once (a
 * reload or a second POST of it runs nothing, and the result page it redirects to only reads); each is written to the
 * SLF4J logger
 * {@value #AUDIT_LOGGER} with the principal and handed to the {@link Builder#audit audit listeners}. Every text from
 * a row, an error or a form is HTML-escaped, long texts are cut, and the pages carry a Content-Security-Policy that
 * runs no script.
 *
 * <p>Numbers come from samples of {@link ClaimQueue#health(int)}, each count stopped at 10,001 (shown as
 * "10,000+"), taken every {@link Builder#sampleInterval sample interval} on a daemon thread and after each action,
 * not from every page view; no count scans the table. The dead-letter and unknown-send tables are keyset-paged.
 * Thread-safe; {@link #close()} stops the sampler.
 */
public final class BatonConsole implements AutoCloseable {
    /** The SLF4J logger every action is written to, at INFO. */
    public static final String AUDIT_LOGGER = "dev.baton.console.audit";

    private final ConsoleApp app;
    private final ScheduledExecutorService sampler;

    private BatonConsole(ConsoleApp app, Duration interval) {
        this.app = app;
        this.sampler = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "baton-console-sampler");
            t.setDaemon(true);
            return t;
        });
        long ms = interval.toMillis();
        sampler.scheduleWithFixedDelay(this::sampleQuietly, 0, ms, TimeUnit.MILLISECONDS);
    }

    /** A builder with no queues, read-only, no authenticator. */
    public static Builder builder() {
        return new Builder();
    }

    /** The console as a handler for the JDK's {@code HttpServer}; mount it on a context path ending with {@code /}. */
    public HttpHandler httpHandler() {
        return new JdkHandler(app::handle);
    }

    /** Answers one request; for hosts with their own adapter (a servlet). Thread-safe. */
    public ConsoleResponse handle(ConsoleRequest request) {
        Objects.requireNonNull(request, "request");
        return app.handle(request);
    }

    /** Measures every queue now (the page then shows these numbers). */
    public void sample() {
        app.sampleAll();
    }

    private void sampleQuietly() {
        try {
            app.sampleAll();
        } catch (RuntimeException e) {
            LoggerFactory.getLogger(BatonConsole.class).warn("console: sampling failed", e);
        }
    }

    /** The last 100 actions taken through this console, oldest first. */
    public List<ConsoleAction> recentActions() {
        return app.recentActions();
    }

    /** Stops the sampler thread. Idempotent. */
    @Override
    public void close() {
        sampler.shutdownNow();
    }

    /** Configures a {@link BatonConsole}. Not thread-safe; {@link #build()} validates it. */
    public static final class Builder {
        private final Map<String, ClaimQueue<?>> queues = new LinkedHashMap<>();
        private final Map<String, String> kinds = new LinkedHashMap<>();
        private final Map<String, String> deadAt = new LinkedHashMap<>();
        private final Map<String, String> references = new LinkedHashMap<>();
        private final List<Worker> workers = new ArrayList<>();
        private final List<Supplier<? extends Collection<Worker>>> workerSources = new ArrayList<>();
        private final List<Consumer<ConsoleAction>> audit = new ArrayList<>();
        private @Nullable ConsoleAuthenticator authenticator;
        private boolean operate;
        private int pageSize = 50;
        private int maxRequeue = 100;
        private int samples = 60;
        private Duration sampleInterval = Duration.ofSeconds(10);
        private Duration attentionAge = Duration.ofMinutes(5);
        private Duration refresh = Duration.ZERO;
        private byte @Nullable [] csrfKey;
        private Duration sessionLifetime = Duration.ofHours(12);
        private boolean secureCookie;
        private dev.baton.@Nullable Baton auditBaton;
        private javax.sql.@Nullable DataSource auditDataSource;
        private @Nullable String auditTable;

        private Builder() {}

        /** Shows {@code queue}. */
        public Builder queue(ClaimQueue<?> queue) {
            add(queue, queue.name().startsWith("outbox:") ? "outbox" : "queue");
            return this;
        }

        /** Shows {@code outbox}'s queue, marked as the outbox. */
        public Builder outbox(Outbox outbox) {
            add(outbox.queue(), "outbox");
            return this;
        }

        private void add(ClaimQueue<?> q, String kind) {
            if (queues.putIfAbsent(q.name(), q) != null) {
                throw new ConfigurationException("queue '" + q.name() + "' is on the console twice");
            }
            kinds.put(q.name(), kind);
        }

        /**
         * A worker of this process that the console may pause and resume; its queue is shown too if it is not yet.
         */
        public Builder worker(Worker worker) {
            workers.add(Objects.requireNonNull(worker, "worker"));
            return this;
        }

        /**
         * Workers of this process the console may pause and resume, asked for at each use: for hosts that start their
         * workers after building the console (the Spring Boot starter). Their queues must be given with
         * {@link #queue}.
         */
        public Builder workers(Supplier<? extends Collection<Worker>> running) {
            workerSources.add(Objects.requireNonNull(running, "running"));
            return this;
        }

        /**
         * The timestamp column of {@code queue}'s table that the database sets whenever a row changes (MySQL's and
         * MariaDB's {@code ON UPDATE CURRENT_TIMESTAMP}, a trigger on PostgreSQL and SQL Server): for a dead row, when
         * it died. The dead letters then show it and can be searched by it (a time range, looked for among 10,000 dead
         * rows a page as the error text is). Baton's own writes set no such column, and without one the console
         * shows no time of death.
         *
         * @throws dev.baton.InvalidIdentifierException if the column is not a plain identifier
         */
        public Builder deadAtColumn(String queue, String column) {
            Objects.requireNonNull(queue, "queue");
            deadAt.put(queue, identifier(column));
            return this;
        }

        /**
         * The column of {@code queue}'s table that keeps the receiver's reference of a send (a payment's id at the
         * provider, the example's {@code third_party_guid}). An operator who resolves an unknown send as sent may type
         * the reference the receiver gave; the completion then writes it to this column (as {@code
         * Outcome.complete(state).set(column, reference)}) in the same guarded update. Without one, a typed reference
         * is kept in the audit only.
         *
         * @throws dev.baton.InvalidIdentifierException if the column is not a plain identifier
         */
        public Builder referenceColumn(String queue, String column) {
            Objects.requireNonNull(queue, "queue");
            references.put(queue, identifier(column));
            return this;
        }

        /** {@code column}, checked as a plain identifier by the core's own check (a query that names it). */
        private static String identifier(String column) {
            return dev.baton.DeadLetterQuery.all()
                    .changedBetween(column, null, null)
                    .timeColumn();
        }

        /** Who sends each request; required. */
        public Builder authenticator(ConsoleAuthenticator authenticator) {
            this.authenticator = Objects.requireNonNull(authenticator, "authenticator");
            return this;
        }

        /** Whether users with {@link ConsolePermission#OPERATE} may act (default false: read only). */
        public Builder operate(boolean operate) {
            this.operate = operate;
            return this;
        }

        /** Rows per page of dead letters and unknown sends, 1..500 (default 50). */
        public Builder pageSize(int rows) {
            if (rows < 1 || rows > 500) {
                throw new ConfigurationException("pageSize must be 1..500, was " + rows);
            }
            this.pageSize = rows;
            return this;
        }

        /** The most dead rows one "requeue these many" action moves, 1..1000 and at most the queue's batch limit (default 100). */
        public Builder maxRequeue(int rows) {
            if (rows < 1 || rows > 1000) {
                throw new ConfigurationException("maxRequeue must be 1..1000, was " + rows);
            }
            this.maxRequeue = rows;
            return this;
        }

        /** How often the queues are measured (default 10 s, at least 1 s) and how many samples the chart shows (default 60, 2..1000). */
        public Builder sampleInterval(Duration interval, int samples) {
            Objects.requireNonNull(interval, "interval");
            if (interval.compareTo(Duration.ofSeconds(1)) < 0) {
                throw new ConfigurationException("sampleInterval must be at least 1 s, was " + interval);
            }
            if (samples < 2 || samples > 1000) {
                throw new ConfigurationException("samples must be 2..1000, was " + samples);
            }
            this.sampleInterval = interval;
            this.samples = samples;
            return this;
        }

        /**
         * How old the oldest eligible row of a queue may be before the overview says the queue needs attention, 10
         * seconds to 7 days (default 5 minutes). A queue with dead rows, unknown sends or paused workers in this
         * process needs attention whatever its age.
         *
         * @throws ConfigurationException if {@code age} is outside 10 seconds to 7 days
         */
        public Builder attentionAge(Duration age) {
            Objects.requireNonNull(age, "age");
            if (age.compareTo(Duration.ofSeconds(10)) < 0 || age.compareTo(Duration.ofDays(7)) > 0) {
                throw new ConfigurationException("attentionAge must be 10 seconds to 7 days, was " + age);
            }
            this.attentionAge = age;
            return this;
        }

        /**
         * How often the overview and a queue's page reload themselves by default, {@link Duration#ZERO} (default: they
         * do not) or 5 to 300 whole seconds. A page's {@code refresh} parameter overrides it for that page and its
         * links ({@code refresh=0}: off). The reload is a {@code meta} refresh (no script); confirmation and result
         * pages never reload, so a reload never repeats an action. A reload loses what was typed in a form on the page.
         *
         * @throws ConfigurationException if {@code every} is neither zero nor 5 to 300 whole seconds
         */
        public Builder refresh(Duration every) {
            Objects.requireNonNull(every, "every");
            if (!every.isZero()
                    && (every.compareTo(Duration.ofSeconds(5)) < 0
                            || every.compareTo(Duration.ofSeconds(300)) > 0
                            || every.toMillis() % 1000 != 0)) {
                throw new ConfigurationException("refresh must be 0 (off) or 5 to 300 whole seconds, was " + every);
            }
            this.refresh = every;
            return this;
        }

        /**
         * The key of the CSRF tokens, the same on every instance of one deployment so that a form served by one
         * instance is accepted by another, and after a restart (default: a key drawn when the console starts, so
         * tokens are good in that process only, until it stops). At least 32 characters, for example 32 random bytes
         * in Base64 ({@code openssl rand -base64 32}); keep it with the deployment's other secrets, and give each
         * console deployment its own. The confirmations and result pages stay in the memory of the process that
         * showed them (see {@code docs/src/console.md}).
         *
         * @throws ConfigurationException if {@code secret} is shorter than 32 characters
         */
        public Builder csrfKey(String secret) {
            Objects.requireNonNull(secret, "secret");
            if (secret.length() < 32) {
                throw new ConfigurationException(
                        "csrfKey must be at least 32 characters, was " + secret.length() + " characters");
            }
            this.csrfKey = secret.getBytes(StandardCharsets.UTF_8);
            return this;
        }

        /**
         * How long the session cookie and the CSRF token of each page are good for, 1 minute to 7 days (default 12
         * hours): a form on a page older than that is refused (403, reload the page).
         */
        public Builder sessionLifetime(Duration lifetime) {
            Objects.requireNonNull(lifetime, "lifetime");
            if (lifetime.compareTo(Duration.ofMinutes(1)) < 0 || lifetime.compareTo(Duration.ofDays(7)) > 0) {
                throw new ConfigurationException("sessionLifetime must be 1 minute to 7 days, was " + lifetime);
            }
            this.sessionLifetime = lifetime;
            return this;
        }

        /**
         * Whether the session cookie is always {@code Secure} (default false: only on requests that came over TLS,
         * which the JDK server's {@code HttpsServer} and a servlet container know). Set it behind a proxy that
         * terminates TLS.
         */
        public Builder secureCookie(boolean always) {
            this.secureCookie = always;
            return this;
        }

        /**
         * Keeps the audit trail in Baton's own table {@code table} (created at {@link #build()} unless it exists; DDL:
         * {@code baton.ownTables().consoleAuditDdl(table)}, the dialect's {@code V10__baton_console_audit.sql}): every
         * confirmed action with its verdict, force flag, evidence as typed and outcome, and every refused attempt (a
         * POST of a user who may not operate, a missing, expired or forged CSRF token). The overview's recent actions
         * and a row's page read it, so every instance on the database shows the same trail, also after a restart.
         * Default: none (the trail is the log, the listeners and this process's memory).
         *
         * @param baton the Baton whose dialect the table is written in
         * @param dataSource where the table is (usually Baton's own data source)
         * @param table the table's name ({@code baton_console_audit} or {@code schema.table})
         */
        public Builder auditTable(dev.baton.Baton baton, javax.sql.DataSource dataSource, String table) {
            this.auditBaton = Objects.requireNonNull(baton, "baton");
            this.auditDataSource = Objects.requireNonNull(dataSource, "dataSource");
            this.auditTable = Objects.requireNonNull(table, "table");
            return this;
        }

        /** Called after every action, on the request's thread; exceptions are logged and ignored. */
        public Builder audit(Consumer<ConsoleAction> listener) {
            audit.add(Objects.requireNonNull(listener, "listener"));
            return this;
        }

        /**
         * The console, its sampler started.
         *
         * @throws ConfigurationException without an authenticator (the console shows queue contents and, in operate
         *     mode, can resend payments: the host must say who may), or without any queue
         */
        public BatonConsole build() {
            if (authenticator == null) {
                throw new ConfigurationException("the console needs an authenticator: without one it would not know"
                        + (operate
                                ? " who may requeue rows and resolve sends (operate mode)"
                                : " who may see the queues")
                        + "; call authenticator(...) with the host's users and roles");
            }
            for (Worker w : workers) {
                if (!queues.containsKey(w.queue().name())) {
                    queue(w.queue());
                }
            }
            if (queues.isEmpty()) {
                throw new ConfigurationException("the console has no queue to show; call queue(...) or outbox(...)");
            }
            List<Worker> fixed = List.copyOf(workers);
            List<Supplier<? extends Collection<Worker>>> sources = List.copyOf(workerSources);
            Supplier<List<Worker>> all = () -> {
                List<Worker> ws = new ArrayList<>(fixed);
                for (Supplier<? extends Collection<Worker>> s : sources) {
                    ws.addAll(s.get());
                }
                return ws;
            };
            List<QueueAdmin<?>> admins = new ArrayList<>();
            for (String name : deadAt.keySet()) {
                if (!queues.containsKey(name)) {
                    throw new ConfigurationException(
                            "deadAtColumn names queue '" + name + "', which is not on the console");
                }
            }
            for (String name : references.keySet()) {
                if (!queues.containsKey(name)) {
                    throw new ConfigurationException(
                            "referenceColumn names queue '" + name + "', which is not on the console");
                }
                if (queues.get(name).unknownState() == null) {
                    throw new ConfigurationException("referenceColumn names queue '" + name
                            + "', which has no unknown sends to resolve (no non-idempotent sink)");
                }
            }
            queues.forEach((name, q) ->
                    admins.add(QueueAdmin.of(q, kinds.get(name), all, deadAt.get(name), references.get(name))));
            AuditTable trail = null;
            if (auditTable != null) {
                auditBaton.ownTables().createConsoleAuditTable(auditTable);
                trail = new AuditTable(auditDataSource, auditBaton.dialect(), auditTable);
            }
            ConsoleApp app = new ConsoleApp(
                    admins,
                    authenticator,
                    operate,
                    pageSize,
                    maxRequeue,
                    samples,
                    sampleInterval,
                    attentionAge,
                    (int) refresh.toSeconds(),
                    LoggerFactory.getLogger(AUDIT_LOGGER),
                    audit,
                    new Csrf(csrfKey, sessionLifetime),
                    secureCookie,
                    trail);
            return new BatonConsole(app, sampleInterval);
        }
    }
}
