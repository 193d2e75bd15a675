package dev.baton;

import dev.baton.internal.Engine;
import dev.baton.internal.KeyText;
import dev.baton.internal.tables.IdempotencyKeyStatements;
import dev.baton.internal.tables.IdempotencyKeyStatements.Stored;
import dev.baton.internal.tables.OwnTableUpgrades;
import dev.baton.internal.tx.SqlWork;
import dev.baton.spi.Dialect;
import dev.baton.spi.OwnTableDialect.OwnTable;
import java.security.SecureRandom;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.Objects;

/**
 * Stripe-like idempotency keys in a table Baton owns (see {@link OwnTables} for its DDL): the first request with a key
 * does the work and stores its response; a retry of the same request replays the response; a concurrent retry is told
 * the work is in progress; a different request reusing the key is refused.
 *
 * <pre>{@code
 * IdempotencyKeys keys = baton.idempotencyKeys(IdempotencyKeys.DEFAULT_TABLE);
 * BeginResult r = keys.begin(customerId, request.header("Idempotency-Key"), sha256Hex(request.body()));
 * if (r instanceof BeginResult.Started s) {
 *     byte[] response = charge(request);          // the work, done once
 *     keys.complete(s.token(), response);         // or keys.fail(s.token()) to let a retry start afresh
 * } else if (r instanceof BeginResult.Completed c) {
 *     replay(c.response());
 * } else if (r instanceof BeginResult.InProgress) {
 *     conflict409();
 * } else {
 *     unprocessable422();                         // Mismatch: the key was used for another request
 * }
 * }</pre>
 *
 * <p>A key is unique per {@code (scope, key)}; a scope is typically the caller's account, so two customers' keys never
 * collide. A started key carries a lease measured by the database clock ({@link Options#lease()}): if the request
 * crashes, a retry after the lease takes the key over with a new fencing token, and the crashed request's late
 * {@code complete} or {@code fail} is refused with {@link FinishResult.LeaseLost}.
 *
 * <p>Every operation has two forms: on the data source (own statements in autocommit mode, transient failures retried)
 * and on a caller's {@link Connection} (joins its transaction; never commits, rolls back or retries; a rollback
 * forgets what the call wrote, so the key work and the caller's own writes commit or vanish together). On a caller's
 * connection a started key is invisible to other requests until the caller commits; their {@code begin} waits for
 * that commit.
 *
 * <p>Immutable and thread-safe. Keys, scopes and fingerprints are checked before any SQL runs
 * ({@link IllegalKeyException}).
 */
public final class IdempotencyKeys {
    /** The default table name, used by the DDL resources the dialect modules ship. */
    public static final String DEFAULT_TABLE = "baton_idempotency_keys";

    private static final SecureRandom RANDOM = new SecureRandom();

    private final Engine engine;
    private final String table;
    private final Options options;
    private final IdempotencyKeyStatements statements;

    IdempotencyKeys(Engine engine, String table, Options options) {
        Dialect d = engine.dialect();
        this.engine = engine;
        this.table = table;
        this.options = Objects.requireNonNull(options, "options");
        this.statements = new IdempotencyKeyStatements(d, table, options.lease(), options.retention());
        List<String> problems;
        try {
            problems = d.diagnostics().storageProblems(engine.dataSource(), options.maxResponseBytes());
        } catch (SQLException e) {
            throw new DataAccessException("check how " + d.name() + " stores values", e);
        }
        if (!problems.isEmpty()) {
            throw new ConfigurationException(
                    "idempotency keys in " + table + " would not be stored exactly: " + String.join("; ", problems));
        }
        OwnTableUpgrades.require(engine, OwnTable.IDEMPOTENCY_KEYS, table);
    }

    /** The table name as configured. */
    public String table() {
        return table;
    }

    /** The options in force. */
    public Options options() {
        return options;
    }

    /**
     * Starts the request identified by {@code (scope, key)}, on the data source. Atomic against every other
     * {@code begin} of the same key, in this process or any other: exactly one of them gets {@link BeginResult.Started}
     * until that request completes, fails or its lease expires.
     *
     * @param scope whose key it is (e.g. the customer id); 1 to 255 characters
     * @param key the idempotency key the client sent; 1 to {@link Options#maxKeyLength()} characters
     * @param fingerprint what identifies the request (e.g. a hash of method, path and body); 1 to 255 characters
     * @return {@link BeginResult.Started}, {@link BeginResult.InProgress}, {@link BeginResult.Completed} or
     *     {@link BeginResult.Mismatch}; never null
     * @throws NullPointerException if an argument is null (before any SQL)
     * @throws IllegalKeyException if an argument is empty, blank, too long, padded with whitespace or holds control
     *     characters (before any SQL)
     * @throws DataAccessException on a database failure that outlasted the transient retries
     */
    public BeginResult begin(String scope, String key, String fingerprint) {
        checkKey(scope, key, fingerprint);
        long fence = RANDOM.nextLong();
        String operation = "begin idempotency key " + describe(scope, key);
        return engine.tx()
                .joinOr(
                        operation,
                        c -> onCaller(c, operation, k -> beginOn(k, scope, key, fingerprint, fence)),
                        () -> engine.tx().autocommit(operation, c -> beginOn(c, scope, key, fingerprint, fence)));
    }

    /**
     * Like {@link #begin(String, String, String)}, on the caller's connection and inside its transaction if one is
     * open: a rollback forgets the start. Never commits, rolls back or retries.
     *
     * @throws NullPointerException if an argument is null (before any SQL)
     * @throws IllegalKeyException if an argument is not acceptable (before any SQL)
     * @throws DataAccessException on a database failure (the caller decides about its transaction)
     */
    public BeginResult begin(Connection connection, String scope, String key, String fingerprint) {
        Objects.requireNonNull(connection, "connection");
        checkKey(scope, key, fingerprint);
        long fence = RANDOM.nextLong();
        return onCaller(
                connection,
                "begin idempotency key " + describe(scope, key),
                c -> beginOn(c, scope, key, fingerprint, fence));
    }

    /**
     * Completes the key started with {@code token}, storing {@code response}, on the data source. Later
     * {@code begin} calls with the same key and fingerprint get {@link BeginResult.Completed} with this response.
     *
     * @param token from {@link BeginResult.Started}
     * @param response the bytes to replay, at most {@link Options#maxResponseBytes()}; may be empty
     * @return {@link FinishResult.Finished}, or {@link FinishResult.LeaseLost} if the token no longer owns the key
     *     (nothing changed)
     * @throws NullPointerException if an argument is null (before any SQL)
     * @throws PayloadTooLargeException if the response is larger than allowed (before any SQL)
     * @throws DataAccessException on a database failure that outlasted the transient retries
     */
    public FinishResult complete(IdempotencyToken token, byte[] response) {
        checkToken(token);
        checkResponse(token, response);
        String operation = "complete idempotency key " + describe(token.scope(), token.key());
        return engine.tx()
                .joinOr(operation, c -> onCaller(c, operation, k -> completeOn(k, token, response)), () -> engine.tx()
                        .autocommit(operation, c -> completeOn(c, token, response)));
    }

    /**
     * Like {@link #complete(IdempotencyToken, byte[])}, on the caller's connection and inside its transaction if one
     * is open. Never commits, rolls back or retries.
     *
     * @throws NullPointerException if an argument is null (before any SQL)
     * @throws PayloadTooLargeException if the response is larger than allowed (before any SQL)
     * @throws DataAccessException on a database failure
     */
    public FinishResult complete(Connection connection, IdempotencyToken token, byte[] response) {
        Objects.requireNonNull(connection, "connection");
        checkToken(token);
        checkResponse(token, response);
        return onCaller(
                connection,
                "complete idempotency key " + describe(token.scope(), token.key()),
                c -> completeOn(c, token, response));
    }

    /**
     * Releases the key started with {@code token} without a response, on the data source, so that the next
     * {@code begin} with it gets {@link BeginResult.Started} (with any fingerprint): for failures the client may retry.
     *
     * @param token from {@link BeginResult.Started}
     * @return {@link FinishResult.Finished}, or {@link FinishResult.LeaseLost} if the token no longer owns the key
     *     (nothing changed)
     * @throws NullPointerException if the token is null
     * @throws DataAccessException on a database failure that outlasted the transient retries
     */
    public FinishResult fail(IdempotencyToken token) {
        checkToken(token);
        String operation = "fail idempotency key " + describe(token.scope(), token.key());
        return engine.tx().joinOr(operation, c -> onCaller(c, operation, k -> failOn(k, token)), () -> engine.tx()
                .autocommit(operation, c -> failOn(c, token)));
    }

    /**
     * Like {@link #fail(IdempotencyToken)}, on the caller's connection and inside its transaction if one is open.
     * Never commits, rolls back or retries.
     *
     * @throws NullPointerException if an argument is null
     * @throws DataAccessException on a database failure
     */
    public FinishResult fail(Connection connection, IdempotencyToken token) {
        Objects.requireNonNull(connection, "connection");
        checkToken(token);
        return onCaller(
                connection, "fail idempotency key " + describe(token.scope(), token.key()), c -> failOn(c, token));
    }

    /**
     * Deletes keys last changed more than {@link Options#retention()} ago by the database clock (completed keys, and
     * started keys whose lease expired), in batches of at most 500 rows, each its own statement, until a batch comes
     * back short. A deleted key can be used again as if new. Safe to run from several processes at once.
     *
     * @return the number of keys deleted
     * @throws DataAccessException on a database failure that outlasted the transient retries
     */
    public long deleteExpired() {
        return statements.deleteExpired(engine, "delete expired idempotency keys from " + table);
    }

    /**
     * The SQL this binding runs, in order: insert-if-absent, take over an expired lease, locking read, complete,
     * fail, one batch of the expiry cleanup. Values are bind parameters; for logs and exact-SQL tests.
     */
    public List<String> sql() {
        return statements.sql();
    }

    private BeginResult beginOn(Connection c, String scope, String key, String fingerprint, long fence)
            throws SQLException {
        IdempotencyToken token = new IdempotencyToken(scope, key, fence);
        for (int round = 1; ; round++) {
            if (statements.insert(c, scope, key, fingerprint, fence)) {
                return new BeginResult.Started(token, 1);
            }
            statements.takeOver(c, scope, key, fingerprint, fence); // if it took the key over, the read finds our fence
            Stored row = statements.read(c, scope, key);
            if (row == null) {
                // released (fail) or cleaned up between our insert and our read: insert again
                if (round >= 3) {
                    throw new DataAccessException("idempotency key " + describe(scope, key) + " in " + table
                            + " vanished between insert and read " + round + " times");
                }
                continue;
            }
            if (row.fence() == fence && !row.completed()) {
                // took it over just now, or an earlier attempt of this same call committed before a lost connection
                return new BeginResult.Started(token, row.attempts());
            }
            if (!row.fingerprint().equals(fingerprint)) {
                return new BeginResult.Mismatch(scope, key);
            }
            if (row.completed()) {
                return new BeginResult.Completed(scope, key, row.response() == null ? new byte[0] : row.response());
            }
            return new BeginResult.InProgress(scope, key);
        }
    }

    private FinishResult completeOn(Connection c, IdempotencyToken token, byte[] response) throws SQLException {
        int n = statements.complete(c, token.scope(), token.key(), token.fence(), response);
        if (n == 1) {
            return new FinishResult.Finished(token);
        }
        // Completed by this token already: an earlier attempt of this call committed before its connection was lost.
        Stored row = statements.read(c, token.scope(), token.key());
        return row != null && row.completed() && row.fence() == token.fence()
                ? new FinishResult.Finished(token)
                : new FinishResult.LeaseLost(token);
    }

    private FinishResult failOn(Connection c, IdempotencyToken token) throws SQLException {
        int n = statements.fail(c, token.scope(), token.key(), token.fence());
        if (n == 1) {
            return new FinishResult.Finished(token);
        }
        // No row: released already (an earlier attempt of this call) or cleaned up; either way the key is free.
        return statements.read(c, token.scope(), token.key()) == null
                ? new FinishResult.Finished(token)
                : new FinishResult.LeaseLost(token);
    }

    private <T> T onCaller(Connection connection, String operation, SqlWork<T> work) {
        try {
            return work.run(connection);
        } catch (SQLException e) {
            throw new DataAccessException(operation, e);
        }
    }

    private void checkKey(String scope, String key, String fingerprint) {
        KeyText.check("scope", scope, KeyText.COLUMN_LENGTH);
        KeyText.check("idempotency key", key, options.maxKeyLength());
        KeyText.check("request fingerprint", fingerprint, KeyText.COLUMN_LENGTH);
    }

    private void checkToken(IdempotencyToken token) {
        Objects.requireNonNull(token, "token");
        KeyText.check("scope", token.scope(), KeyText.COLUMN_LENGTH);
        KeyText.check("idempotency key", token.key(), options.maxKeyLength());
    }

    private void checkResponse(IdempotencyToken token, byte[] response) {
        Objects.requireNonNull(response, "response");
        if (response.length > options.maxResponseBytes()) {
            throw new PayloadTooLargeException(
                    "response of idempotency key " + describe(token.scope(), token.key()),
                    response.length,
                    options.maxResponseBytes());
        }
    }

    private static String describe(String scope, String key) {
        return "'" + key + "' in scope '" + scope + "'";
    }

    @Override
    public String toString() {
        return "IdempotencyKeys[" + table + ", " + options + "]";
    }

    /**
     * Settings of an {@link IdempotencyKeys} binding. Immutable: each method returns new options.
     *
     * <pre>{@code
     * baton.idempotencyKeys("baton_idempotency_keys",
     *     IdempotencyKeys.Options.defaults().lease(Duration.ofMinutes(1)).retention(Duration.ofDays(7)));
     * }</pre>
     *
     * @param lease how long a started key belongs to its request before a retry may take it over, measured by the
     *     database clock; 1 s to 24 h, default 5 minutes. Make it longer than the slowest request.
     * @param retention how long keys are kept after their last change before {@link IdempotencyKeys#deleteExpired()}
     *     deletes them; longer than the lease, at most 3650 days, default 24 hours
     * @param maxKeyLength the longest idempotency key accepted, in UTF-16 chars; 1 to 255, default 255
     * @param maxResponseBytes the largest response accepted by {@code complete}; 1 to 16 MiB − 1 (16,777,215), default
     *     256 KiB
     */
    public record Options(Duration lease, Duration retention, int maxKeyLength, int maxResponseBytes) {
        /** The most bytes the response column holds on every database (MySQL's MEDIUMBLOB). */
        public static final int MAX_RESPONSE_BYTES = 16 * 1024 * 1024 - 1;

        private static final Duration MIN_LEASE = Duration.ofSeconds(1);
        private static final Duration MAX_LEASE = Duration.ofHours(24);
        private static final Duration MAX_RETENTION = Duration.ofDays(3650);

        /**
         * Validates the options.
         *
         * @throws ConfigurationException naming the setting and the value, if out of range
         * @throws NullPointerException if a duration is null
         */
        public Options {
            Objects.requireNonNull(lease, "lease");
            Objects.requireNonNull(retention, "retention");
            // below a second, a request still running loses its key to a retry, and both do the work
            if (lease.compareTo(MAX_LEASE) > 0 || lease.compareTo(MIN_LEASE) < 0) {
                throw new ConfigurationException("lease must be 1 s to 24 h, was " + lease + " (idempotency keys)");
            }
            if (retention.compareTo(lease) <= 0 || retention.compareTo(MAX_RETENTION) > 0) {
                throw new ConfigurationException("retention must be longer than the lease (" + lease
                        + ") and at most 3650 days, was " + retention + " (idempotency keys)");
            }
            if (maxKeyLength < 1 || maxKeyLength > KeyText.COLUMN_LENGTH) {
                throw new ConfigurationException("maxKeyLength must be 1.." + KeyText.COLUMN_LENGTH + ", was "
                        + maxKeyLength + " (idempotency keys)");
            }
            if (maxResponseBytes < 1 || maxResponseBytes > MAX_RESPONSE_BYTES) {
                throw new ConfigurationException("maxResponseBytes must be 1.." + MAX_RESPONSE_BYTES + ", was "
                        + maxResponseBytes + " (idempotency keys)");
            }
        }

        /** Lease 5 minutes, retention 24 hours, keys up to 255 chars, responses up to 256 KiB. */
        public static Options defaults() {
            return new Options(Duration.ofMinutes(5), Duration.ofHours(24), KeyText.COLUMN_LENGTH, 256 * 1024);
        }

        /**
         * The same options with another lease.
         *
         * @throws ConfigurationException if out of range or not shorter than the retention
         */
        public Options lease(Duration lease) {
            return new Options(lease, retention, maxKeyLength, maxResponseBytes);
        }

        /**
         * The same options with another retention.
         *
         * @throws ConfigurationException if out of range or not longer than the lease
         */
        public Options retention(Duration retention) {
            return new Options(lease, retention, maxKeyLength, maxResponseBytes);
        }

        /**
         * The same options with another key length limit.
         *
         * @throws ConfigurationException if out of range
         */
        public Options maxKeyLength(int chars) {
            return new Options(lease, retention, chars, maxResponseBytes);
        }

        /**
         * The same options with another response size limit.
         *
         * @throws ConfigurationException if out of range
         */
        public Options maxResponseBytes(int bytes) {
            return new Options(lease, retention, maxKeyLength, bytes);
        }
    }
}
