package dev.baton.spi;

import java.net.URL;
import java.util.List;
import java.util.Optional;

/**
 * Baton's own tables (idempotency keys, inbox, outbox) on one database: the DDL a dialect module ships as SQL files,
 * and the statements whose shape differs between vendors. Stateless and thread-safe.
 *
 * <p>The DDL exists once, as the files {@link OwnTable#script()} in the dialect's package (for example
 * {@code dev/baton/postgres/V2__baton_inbox.sql}), ready for Flyway or Liquibase. Baton reads the same files to create
 * a table, so a file must follow these rules: statements end with {@code ;}, comments are {@code --} lines, every
 * identifier is quoted as {@link SqlVocabulary#quote} quotes it, the table has its {@link OwnTable#defaultName()
 * default name}, and every other name in the table's schema (indexes, constraints) is that name followed by
 * {@code _<suffix>}. For another table name Baton replaces these quoted identifiers, whole, by the quoted table name
 * and {@code <bare table name>_<suffix>}.
 */
public interface OwnTableDialect {

    /** Baton's own tables, with the name each has in its shipped DDL file. */
    enum OwnTable {
        /** {@link dev.baton.IdempotencyKeys}: file {@code V1__baton_idempotency_keys.sql}. */
        IDEMPOTENCY_KEYS("baton_idempotency_keys", "V1__baton_idempotency_keys.sql"),
        /** {@link dev.baton.Inbox}: file {@code V2__baton_inbox.sql}. */
        INBOX("baton_inbox", "V2__baton_inbox.sql"),
        /** {@link dev.baton.Outbox}: file {@code V3__baton_outbox.sql}. */
        OUTBOX("baton_outbox", "V3__baton_outbox.sql");

        private final String defaultName;
        private final String script;

        OwnTable(String defaultName, String script) {
            this.defaultName = defaultName;
            this.script = script;
        }

        /** The table's name in its DDL file. */
        public String defaultName() {
            return defaultName;
        }

        /** The file name of its DDL, e.g. {@code V2__baton_inbox.sql}. */
        public String script() {
            return script;
        }
    }

    /**
     * The shipped DDL file of {@code table}, or empty when the dialect ships none. Default: the resource
     * {@link OwnTable#script()} in the package of this object's class.
     */
    default Optional<URL> ddlScript(OwnTable table) {
        return Optional.ofNullable(getClass().getResource(table.script()));
    }

    /**
     * An insert of one row that inserts nothing (update count 0) when a row with the same key exists, and leaves the
     * caller's transaction usable either way. Each element of {@code values} is {@code ?} or an SQL expression such as
     * {@link SqlVocabulary#currentTimestamp()}; the statement must bind each {@code ?} exactly once, in column order.
     *
     * <p>The default is a plain {@code INSERT}, for databases where a duplicate fails only the statement with a
     * unique violation ({@link Diagnostics#classify}), which Baton reads as "present". A dialect whose failed
     * statements abort the transaction ({@link DialectTraits#failedStatementAbortsTransaction()}) must override it.
     *
     * @param quotedTable the quoted table
     * @param quotedColumns the quoted columns, in bind order
     * @param values one value expression per column
     * @param quotedKeyColumns the columns of the unique key that decides "present"
     */
    default String insertIfAbsent(
            String quotedTable, List<String> quotedColumns, List<String> values, List<String> quotedKeyColumns) {
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
     * @param limit the most rows to delete, 1 to {@link DialectTraits#maxBatchSize()}
     */
    default String deleteBatch(String quotedTable, List<String> quotedKeyColumns, String where, int limit) {
        String key = String.join(", ", quotedKeyColumns);
        return "DELETE FROM " + quotedTable + " WHERE (" + key + ") IN (SELECT " + key + " FROM " + quotedTable
                + " WHERE " + where + " FETCH FIRST " + limit + " ROWS ONLY)";
    }
}
