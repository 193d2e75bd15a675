package dev.baton.spi;

import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * The words of a database's SQL that differ between vendors: identifier quoting, the database clock and its
 * arithmetic, literals for state codes, column types and DDL fragments. Stateless and thread-safe; the engine renders
 * each statement once and caches it.
 */
public interface SqlVocabulary {

    /** Quotes an identifier that Baton has already validated as {@code ^[A-Za-z_][A-Za-z0-9_]*$}. */
    String quote(String identifier);

    /** The database clock as an SQL expression, e.g. {@code CURRENT_TIMESTAMP(6)}. */
    String currentTimestamp();

    /**
     * True when {@link #currentTimestamp()} is the UTC wall clock without a zone (MySQL's {@code UTC_TIMESTAMP(6)}
     * into {@code DATETIME(6)}, SQL Server's {@code SYSUTCDATETIME()} into {@code datetime2}): a zone-less value Baton
     * reads back from its own time columns ({@code LocalDateTime}, or a {@code Timestamp} the driver built in the
     * JVM's zone) is then a UTC wall clock, not one in the JVM's zone. False by default: the columns hold instants
     * (PostgreSQL {@code timestamptz}).
     */
    default boolean clockIsUtcWallClock() {
        return false;
    }

    /**
     * {@code select} limited to its first {@code n} rows, so that the planner knows the bound (a driver's
     * {@code setMaxRows} stops the fetch, not the plan): {@code select LIMIT n} by default (PostgreSQL, MySQL,
     * MariaDB). Used by the admin views' pages and bounded counts.
     *
     * @param select a query that starts with {@code SELECT }
     * @param n at least 1
     */
    default String firstRows(String select, int n) {
        return select + " LIMIT " + n;
    }

    /**
     * The database clock as a {@code BIGINT} number of microseconds since 1970-01-01 00:00 UTC, whatever the session's
     * time zone, or {@code null} when the dialect has no such expression (the default): a queue's {@link
     * dev.baton.ClaimQueueBuilder#rateLimit rate limit} keeps its token bucket in these numbers, and is refused where
     * there are none.
     */
    default @Nullable String clockMicros() {
        return null;
    }

    /** An SQL expression for {@code timestamp + millis} (millis may be negative), computed by the database. */
    String plusMillis(String timestampSql, long millis);

    /**
     * An SQL expression for {@code timestamp + ?} where the one bind parameter is a number of milliseconds (a
     * {@code long}), computed by the database; used for backoff delays that vary per row.
     */
    String plusMillisParam(String timestampSql);

    /** The column type to suggest in DDL hints. */
    String columnType(ColumnType type);

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
     * A read of the rows among {@code count} ids, given as bind parameters, that no other transaction holds locked: it
     * returns their ids and locks them until the transaction ends, passing over locked ones without waiting. It reads
     * by the id alone (a condition on another column may lead the database through another index, and lock every row
     * it reads there). Run inside a transaction at READ COMMITTED. Default: {@code SELECT id FROM table WHERE id IN
     * (?, …) FOR UPDATE SKIP LOCKED} (MySQL 8, MariaDB 10.6).
     *
     * @param quotedTable the quoted table
     * @param quotedIdColumn the quoted id column
     * @param count the number of ids, at least 1
     */
    default String lockUnlockedIds(String quotedTable, String quotedIdColumn, int count) {
        return "SELECT " + quotedIdColumn + " FROM " + quotedTable + " WHERE " + quotedIdColumn + " IN ("
                + Rows.placeholders(count) + ") FOR UPDATE SKIP LOCKED";
    }

    /**
     * Whether a text value compared with a column should be bound in a form that depends on the column's type
     * ({@link #textParam}): false by default, so no column type is read.
     */
    default boolean typesTextParams() {
        return false;
    }

    /**
     * The bind of the text {@code value} compared with a column whose type {@code DatabaseMetaData} names {@code
     * typeName} (empty when unknown): {@code ?} by default. It must compare exactly as {@code ?} does, for every value.
     */
    default String textParam(String typeName, String value) {
        return "?";
    }

    /**
     * The quotient of two non-negative integer expressions, rounded down: {@code (a) / (b)} by default (PostgreSQL and
     * SQL Server divide integers so); MySQL and MariaDB, whose {@code /} gives a decimal, use {@code DIV}. A weighted
     * round-robin claim's turn is one ({@link BatchUpdateSpec.FairGroups#turn}).
     *
     * @param dividend an integer expression, at least 0
     * @param divisor an integer expression, at least 1
     */
    default String integerQuotient(String dividend, String divisor) {
        return "(" + dividend + ") / (" + divisor + ")";
    }

    /**
     * The guard {@code column IN (codes)} on a state column, with the codes as literals ({@link #codeLiteral}). A
     * database whose default collation compares strings loosely (MySQL and MariaDB ignore case and trailing spaces)
     * must make the match exact, so that a stored {@code 'PAID '} or {@code 'paid'} never passes for {@code 'PAID'}.
     *
     * @param quotedColumn the quoted state column
     * @param codes the stored codes ({@code Long} or {@code String}), at least one
     */
    default SqlFragment stateIn(String quotedColumn, List<Object> codes) {
        if (codes.isEmpty()) {
            throw new IllegalArgumentException("a state guard needs at least one code");
        }
        if (codes.size() == 1) {
            return SqlFragment.of(quotedColumn + " = " + codeLiteral(codes.get(0)));
        }
        List<String> literals = new ArrayList<>();
        for (Object c : codes) {
            literals.add(codeLiteral(c));
        }
        return SqlFragment.of(quotedColumn + " IN (" + String.join(", ", literals) + ")");
    }

    /**
     * Whether the database seeks an index with {@code state IN (…)} as one of its key parts inside a correlated
     * subquery (PostgreSQL and SQL Server do). MySQL and MariaDB seek it by the equalities only and then read every
     * entry of the key, the completed rows included, so the guard of a queue {@code orderedPerKey} ("no older active row
     * of this key") grows with the delivered history; for them Baton writes one {@code NOT EXISTS} per state, each an
     * equality seek. Default: true.
     */
    default boolean seeksIndexByStateList() {
        return true;
    }

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
    default String claimIndex(String quotedIndex, String quotedTable, List<String> columns, String activeGuard) {
        return "CREATE INDEX " + quotedIndex + " ON " + quotedTable + " (" + String.join(", ", columns) + ")";
    }

    /**
     * As {@link #claimIndex(String, String, List, String)}, told also the columns the claim and the expiry sweep test
     * beyond the index's key (lease, backoff, attempts, guard columns outside the key): a dialect whose row locks
     * count every row a statement reads may carry them in the index, so rows they reject are never looked up. The
     * four-argument form by default.
     *
     * @param residualColumns the quoted columns tested beyond the key, none of them in {@code columns}
     */
    default String claimIndex(
            String quotedIndex,
            String quotedTable,
            List<String> columns,
            String activeGuard,
            List<String> residualColumns) {
        return claimIndex(quotedIndex, quotedTable, columns, activeGuard);
    }

    /**
     * The DDL that makes a timestamp column compare correctly with {@link #currentTimestamp()} whatever the session's
     * time zone, or null when its type does already. Baton writes and compares lease, backoff and the host's time
     * columns against the database's clock; a type whose values depend on the session zone (PostgreSQL {@code
     * timestamp} holding the session's wall clock, MySQL {@code TIMESTAMP} ending in 2038) lets two sessions in
     * different zones disagree about whether a lease has expired. Null by default.
     *
     * @param quotedTable the quoted table
     * @param quotedColumn the quoted column
     * @param typeName the column's type as the JDBC metadata names it ({@code TYPE_NAME})
     * @param nullable whether the column accepts NULL
     */
    default @Nullable String zoneSafeTimestampFix(
            String quotedTable, String quotedColumn, String typeName, boolean nullable) {
        return null;
    }

    /**
     * For a timestamp column whose default fills it with a local wall clock (the server's or the session's time zone)
     * while Baton writes and compares UTC: the default to use instead; null when the default gives UTC or an instant,
     * or the type stores instants whatever the default (PostgreSQL {@code timestamptz}). Such a column mixes zones:
     * rows the default filled look hours older or younger to {@code olderThan} and {@code due} than they are. Null by
     * default.
     *
     * @param typeName the column's type as the JDBC metadata names it ({@code TYPE_NAME})
     * @param columnDefault the column's default as the JDBC metadata gives it ({@code COLUMN_DEF}), such as {@code
     *     (getdate())}; see {@link #bareExpression}
     */
    default @Nullable String utcDefaultFor(String typeName, String columnDefault) {
        return null;
    }

    /**
     * A default expression as the JDBC metadata gives it, lower case, without spaces and without enclosing
     * parentheses: {@code ((getdate()))} and {@code CURRENT_TIMESTAMP} become {@code getdate()} and {@code
     * current_timestamp}.
     */
    static String bareExpression(String expression) {
        String s = expression.toLowerCase(java.util.Locale.ROOT).replaceAll("\\s+", "");
        while (s.length() >= 2 && s.startsWith("(") && s.endsWith(")") && balanced(s.substring(1, s.length() - 1))) {
            s = s.substring(1, s.length() - 1);
        }
        return s;
    }

    private static boolean balanced(String s) {
        int depth = 0;
        for (int i = 0; i < s.length(); i++) {
            depth += s.charAt(i) == '(' ? 1 : s.charAt(i) == ')' ? -1 : 0;
            if (depth < 0) {
                return false;
            }
        }
        return depth == 0;
    }

    /**
     * DDL that changes a column's type, keeping it nullable or not: {@code ALTER TABLE t ALTER COLUMN c type NULL}
     * by default (SQL Server's form).
     *
     * @param quotedTable the quoted table
     * @param quotedColumn the quoted column
     * @param type the new type
     * @param nullable whether the column accepts NULL
     */
    default String alterColumnType(String quotedTable, String quotedColumn, String type, boolean nullable) {
        return "ALTER TABLE " + quotedTable + " ALTER COLUMN " + quotedColumn + " " + type
                + (nullable ? " NULL" : " NOT NULL");
    }

    /**
     * DDL that makes a column NOT NULL, keeping its type: {@link #alterColumnType} with {@code nullable} false by
     * default (SQL Server's and MySQL's forms restate the type).
     *
     * @param quotedTable the quoted table
     * @param quotedColumn the quoted column
     * @param type the column's type, as the JDBC metadata names it ({@code TYPE_NAME})
     */
    default String setNotNull(String quotedTable, String quotedColumn, String type) {
        return alterColumnType(quotedTable, quotedColumn, type, false);
    }

    /** DDL that adds a column. */
    default String addColumn(String quotedTable, String quotedColumn, String typeAndConstraints) {
        return "ALTER TABLE " + quotedTable + " ADD COLUMN " + quotedColumn + " " + typeAndConstraints;
    }

    /**
     * The exclusive lock {@code key} of a transaction ({@link ExclusiveLock}), or null when the database has none.
     * Null by default.
     *
     * @param key the lock's key, a hash the caller made; {@link ExclusiveLock#nameOf(long)} gives its name
     */
    default @Nullable ExclusiveLock exclusiveLock(long key) {
        return null;
    }

    /**
     * The exclusive lock {@code key} of the claims of {@code quotedTable}: {@link #exclusiveLock(long)} by default. A
     * dialect whose transaction only begins with a statement that reads a table (SQL Server under mssql-jdbc's
     * implicit transactions) reads this one first.
     *
     * @param key the lock's key, as for {@link #exclusiveLock(long)}
     * @param quotedTable the quoted table the claims update
     */
    default @Nullable ExclusiveLock exclusiveLock(long key, String quotedTable) {
        return exclusiveLock(key);
    }

    /**
     * {@link #exclusiveLock(long, String)} for a table named without its schema, which is another table in each schema
     * (or database) a connection starts in: where the database's lock names are server-wide (MySQL's and MariaDB's
     * {@code GET_LOCK}), the dialect adds the connection's current database to the name, so that the same queue in two
     * databases of one server does not serialise across them. By default {@link #exclusiveLock(long, String)}:
     * PostgreSQL's advisory locks and SQL Server's application locks belong to one database already.
     *
     * @param key the lock's key, a hash the caller made of the table (as configured) and the queue
     * @param quotedTable the quoted table the claims update
     */
    default @Nullable ExclusiveLock exclusiveLockInCurrentSchema(long key, String quotedTable) {
        return exclusiveLock(key, quotedTable);
    }
}
