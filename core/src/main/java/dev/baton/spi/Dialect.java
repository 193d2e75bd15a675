package dev.baton.spi;

import java.sql.SQLException;

/**
 * What Baton needs to know about one database family: its capabilities and the SQL fragments and statements that
 * differ between vendors. The engine never switches on a database name; it asks the dialect.
 *
 * <p>Dialect modules register an implementation through {@link java.util.ServiceLoader}. Implementations are
 * stateless and thread-safe.
 */
public interface Dialect {

    /** A short name for messages, e.g. {@code postgres}. */
    String name();

    /**
     * True when this dialect serves the database described. Too-old versions must return false here, or throw
     * {@link dev.baton.UnsupportedDatabaseException} naming the minimum, rather than run with wrong claim semantics.
     */
    boolean supports(DatabaseInfo info);

    /** The longest identifier the database accepts. */
    int maxIdentifierLength();

    /** Quotes an identifier that Baton has already validated as {@code ^[A-Za-z_][A-Za-z0-9_]*$}. */
    String quote(String identifier);

    /** The database clock as an SQL expression, e.g. {@code CURRENT_TIMESTAMP(6)}. */
    String currentTimestamp();

    /** An SQL expression for {@code timestamp + millis} (millis may be negative), computed by the database. */
    String plusMillis(String timestampSql, long millis);

    /**
     * A stored state code as an SQL literal. Codes are configuration constants checked by
     * {@link dev.baton.StateMachine} (integers, or short text without quotes, backslashes or control characters), so
     * they are safe to render; rendering them keeps the planner's estimate specific to the state, where a bind
     * parameter lets PostgreSQL's generic plan (used once a server-side prepared statement has run five times) scan
     * the table in primary-key order past every completed row. Values (ids, tokens, columns a caller sets) are always
     * bind parameters.
     */
    default String codeLiteral(Object code) {
        if (code instanceof Long l) {
            return Long.toString(l);
        }
        return "'" + checkedTextCode(code) + "'";
    }

    /** The text of a string code, refusing what must never reach SQL text (defence in depth). */
    static String checkedTextCode(Object code) {
        if (!(code instanceof String s) || s.isEmpty() || s.length() > 64) {
            throw new IllegalArgumentException("not a stored state code: " + code);
        }
        for (int i = 0; i < s.length(); i++) {
            char ch = s.charAt(i);
            if (ch == '\'' || ch == '"' || ch == '\\' || ch < 0x20 || ch == 0x7f) {
                throw new IllegalArgumentException(
                        "a stored state code may not contain quotes, backslashes or control" + " characters: " + s);
            }
        }
        return s;
    }

    /**
     * The guard {@code column IN (codes)} on a state column, with the codes as literals ({@link #codeLiteral}). A
     * database whose default collation compares strings loosely (MySQL and MariaDB ignore case and trailing spaces)
     * must make the match exact, so that a stored {@code 'PAID '} or {@code 'paid'} never passes for {@code 'PAID'}.
     *
     * @param quotedColumn the quoted state column
     * @param codes the stored codes ({@code Long} or {@code String}), at least one
     */
    default SqlFragment stateIn(String quotedColumn, java.util.List<Object> codes) {
        if (codes.isEmpty()) {
            throw new IllegalArgumentException("a state guard needs at least one code");
        }
        if (codes.size() == 1) {
            return SqlFragment.of(quotedColumn + " = " + codeLiteral(codes.get(0)));
        }
        java.util.List<String> literals = new java.util.ArrayList<>();
        for (Object c : codes) {
            literals.add(codeLiteral(c));
        }
        return SqlFragment.of(quotedColumn + " IN (" + String.join(", ", literals) + ")");
    }

    /**
     * An SQL expression for {@code timestamp + ?} where the one bind parameter is a number of milliseconds (a
     * {@code long}), computed by the database; used for backoff delays that vary per row.
     */
    String plusMillisParam(String timestampSql);

    /**
     * Checks that an index serves a claim (no full scan, no sort of every candidate), by asking the planner, and
     * returns a description of the problem if not. The default checks nothing.
     *
     * @param connection a connection to run EXPLAIN on
     * @param spec the claim
     * @param args values for the spec's {@link Param}s
     */
    default java.util.Optional<String> claimPlanProblem(java.sql.Connection connection, ClaimSpec spec, Object[] args)
            throws SQLException {
        return java.util.Optional.empty();
    }

    /** Classifies a driver exception. */
    SqlError classify(SQLException e);

    /**
     * True when a failed statement aborts the whole transaction (PostgreSQL, 25P02), so a caller's transaction must
     * be protected by a savepoint around a statement that may hit a unique constraint.
     */
    default boolean failedStatementAbortsTransaction() {
        return false;
    }

    /**
     * True when a {@link ClaimStatement} needs an explicit READ COMMITTED transaction around it (it is several
     * statements, or the isolation must be forced); false when it is one atomic statement that may run in autocommit
     * mode, saving the round trip of a separate COMMIT.
     */
    default boolean claimNeedsTransaction() {
        return true;
    }

    /** The largest batch a claim may take (SQL Server: 500, below lock escalation). */
    default int maxBatchSize() {
        return 1000;
    }

    /** Renders a batch claim once; the engine caches and reuses the result. */
    ClaimStatement claimStatement(ClaimSpec spec);

    /** The column type to suggest in DDL hints. */
    String columnType(ColumnType type);

    /**
     * DDL for an index that serves a claim: by default on {@code columns} (the state column first, then the guard
     * columns, then the order). A dialect with partial indexes may index only the claimable rows instead, which keeps
     * the index small and the planner on it however stale its statistics are.
     *
     * @param quotedIndex the quoted index name
     * @param quotedTable the quoted table
     * @param columns the quoted columns, state column first
     * @param activeGuard the guard {@code state IN (<claimable>, <processing>…)}, without binds: the rows a claim or an
     *     expiry sweep looks at
     */
    default String claimIndex(
            String quotedIndex, String quotedTable, java.util.List<String> columns, String activeGuard) {
        return "CREATE INDEX " + quotedIndex + " ON " + quotedTable + " (" + String.join(", ", columns) + ")";
    }

    /** DDL that adds a column. */
    default String addColumn(String quotedTable, String quotedColumn, String typeAndConstraints) {
        return "ALTER TABLE " + quotedTable + " ADD COLUMN " + quotedColumn + " " + typeAndConstraints;
    }

    /**
     * The DDL of Baton's idempotency-key table, statement by statement without a trailing {@code ;}: columns
     * {@code scope}, {@code idempotency_key}, {@code fingerprint} (text up to 255 characters, compared exactly),
     * {@code state} ({@code in_progress} or {@code completed}), {@code token} (64-bit), {@code attempts} (int),
     * {@code locked_until}, {@code created_at}, {@code updated_at} (database-clock timestamps; only
     * {@code locked_until} nullable), {@code response} (nullable binary up to 16 MiB); primary key
     * {@code (scope, idempotency_key)}; an index on {@code updated_at}. The text must equal the dialect's shipped
     * resource {@code V1__baton_idempotency_keys.sql} for the default names.
     *
     * @param quotedTable the quoted, possibly schema-qualified table name
     * @param quotedIndex the quoted name of the {@code updated_at} index
     * @throws dev.baton.UnsupportedDatabaseException by default: a dialect that ships no DDL
     */
    default java.util.List<String> idempotencyKeysDdl(String quotedTable, String quotedIndex) {
        throw new dev.baton.UnsupportedDatabaseException("dialect " + name() + " ships no idempotency-key table");
    }

    /**
     * The DDL of Baton's inbox table, statement by statement without a trailing {@code ;}: columns {@code source},
     * {@code message_id} (text up to 255 characters, compared exactly), {@code received_at} (database-clock
     * timestamp); primary key {@code (source, message_id)}; an index on {@code received_at}. The text must equal the
     * dialect's shipped resource {@code V2__baton_inbox.sql} for the default names.
     *
     * @param quotedTable the quoted, possibly schema-qualified table name
     * @param quotedIndex the quoted name of the {@code received_at} index
     * @throws dev.baton.UnsupportedDatabaseException by default: a dialect that ships no DDL
     */
    default java.util.List<String> inboxDdl(String quotedTable, String quotedIndex) {
        throw new dev.baton.UnsupportedDatabaseException("dialect " + name() + " ships no inbox table");
    }

    /**
     * The DDL of Baton's outbox table, statement by statement without a trailing {@code ;}: an identity primary key
     * {@code id}; {@code topic}, {@code msg_key}, {@code dedup_key} (text up to 255 characters, compared exactly;
     * dedup unique where not null); {@code payload} (binary), {@code headers} (text); the claim queue's columns
     * {@code status}, {@code lease_until}, {@code claim_token}, {@code attempts}, {@code next_attempt_at},
     * {@code last_error}; {@code created_at}; indexes {@code (status, id)} and {@code (msg_key, id)}. Must equal the
     * shipped resource {@code V3__baton_outbox.sql} for the default names.
     *
     * @param quotedTable the quoted table
     * @param bareTable the table's bare name, from which index names are derived (validated, unquoted)
     * @throws dev.baton.UnsupportedDatabaseException by default: a dialect that ships no DDL
     */
    default java.util.List<String> outboxDdl(String quotedTable, String bareTable) {
        throw new dev.baton.UnsupportedDatabaseException("dialect " + name() + " ships no outbox table");
    }

    /**
     * An insert of one row that inserts nothing (update count 0) when a row with the same key exists, and leaves the
     * caller's transaction usable either way. Each element of {@code values} is {@code ?} or an SQL expression such as
     * {@link #currentTimestamp()}; the statement must bind each {@code ?} exactly once, in column order.
     *
     * <p>The default is a plain {@code INSERT}, for databases where a duplicate fails only the statement with a
     * unique violation ({@link #classify}), which Baton reads as "present". A dialect whose failed statements abort
     * the transaction ({@link #failedStatementAbortsTransaction()}) must override it.
     *
     * @param quotedTable the quoted table
     * @param quotedColumns the quoted columns, in bind order
     * @param values one value expression per column
     * @param quotedKeyColumns the columns of the unique key that decides "present"
     */
    default String insertIfAbsent(
            String quotedTable,
            java.util.List<String> quotedColumns,
            java.util.List<String> values,
            java.util.List<String> quotedKeyColumns) {
        return "INSERT INTO " + quotedTable + " (" + String.join(", ", quotedColumns) + ") VALUES ("
                + String.join(", ", values) + ")";
    }

    /**
     * A read that locks what it finds until the transaction ends, and that sees the latest committed row even in a
     * caller's REPEATABLE READ transaction (where a plain read may see an older snapshot). Default
     * {@code SELECT columns FROM table WHERE where FOR UPDATE}.
     *
     * @param quotedTable the quoted table
     * @param columns the select list, quoted
     * @param where the condition, with {@code ?} placeholders
     */
    default String lockingSelect(String quotedTable, String columns, String where) {
        return "SELECT " + columns + " FROM " + quotedTable + " WHERE " + where + " FOR UPDATE";
    }

    /**
     * A delete of at most {@code limit} rows matching {@code where} (which has no bind parameters), for retention
     * cleanup in bounded batches; it may skip rows that other transactions hold locked. Default: the standard
     * {@code DELETE … WHERE (key) IN (SELECT key … FETCH FIRST n ROWS ONLY)}.
     *
     * @param quotedTable the quoted table
     * @param quotedKeyColumns the columns of its primary key
     * @param where the condition, without bind parameters
     * @param limit the most rows to delete, 1 to {@link #maxBatchSize()}
     */
    default String deleteBatch(String quotedTable, java.util.List<String> quotedKeyColumns, String where, int limit) {
        String key = String.join(", ", quotedKeyColumns);
        return "DELETE FROM " + quotedTable + " WHERE (" + key + ") IN (SELECT " + key + " FROM " + quotedTable
                + " WHERE " + where + " FETCH FIRST " + limit + " ROWS ONLY)";
    }

    /**
     * Checks once, at configuration time, that the database stores values exactly as given, or fails loudly: for
     * example that MySQL runs in strict mode (without it, an over-long value is silently truncated) and accepts
     * packets large enough for {@code largestValueBytes}. Returns the problems found, each a sentence that says how to
     * fix it. Default: none, without connecting.
     *
     * @param dataSource where to look; a dialect that needs no check does not connect
     * @param largestValueBytes the largest binary value Baton will write
     * @throws SQLException if the check cannot run
     */
    default java.util.List<String> storageProblems(javax.sql.DataSource dataSource, long largestValueBytes)
            throws SQLException {
        return java.util.List.of();
    }

    /** Logical column types used in DDL hints. */
    enum ColumnType {
        /** 64-bit integer. */
        BIGINT,
        /** 32-bit integer. */
        INT,
        /** Short text, up to 64 characters. */
        SHORT_TEXT,
        /** Text up to 4000 characters. */
        TEXT,
        /** Timestamp with microseconds, in the database clock's zone. */
        TIMESTAMP
    }
}
