package dev.baton.spi;

import java.net.URL;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Baton's own tables (idempotency keys, inbox, outbox, receipts, rate limits) on one database: the DDL a dialect module ships as SQL files,
 * and the statements whose shape differs between vendors. Stateless and thread-safe.
 *
 * <p>The DDL exists once, as the files {@link OwnTable#script()} in the dialect's package (for example
 * {@code dev/baton/postgres/V2__baton_inbox.sql}), ready for Flyway or Liquibase. Baton reads the same files to create
 * a table, so a file must follow these rules: statements end with {@code ;}, comments are {@code --} lines, every
 * identifier is quoted as {@link SqlVocabulary#quote} quotes it, the table has its {@link OwnTable#defaultName()
 * default name}, and every other name in the table's schema (indexes, constraints) is that name followed by
 * {@code _<suffix>}. For another table name Baton replaces these quoted identifiers, whole, by the quoted table name
 * and {@code <bare table name>_<suffix>}.
 *
 * <p>A file, once shipped, never changes (Flyway refuses a changed checksum): a later change to a table ships as a
 * new file with a higher version ({@link OwnTable#upgrades()}), which a database without it skips. Baton creates a
 * table by running its create file and then the upgrades the dialect ships, in order, so a new table and an
 * upgraded one end up the same.
 */
public interface OwnTableDialect {

    /** Baton's own tables, with the name each has in its shipped DDL files. */
    enum OwnTable {
        /**
         * {@link dev.baton.IdempotencyKeys}: file {@code V1__baton_idempotency_keys.sql}, upgrade {@code
         * V4__baton_idempotency_keys_utc_datetime.sql}.
         */
        IDEMPOTENCY_KEYS(
                "baton_idempotency_keys",
                "V1__baton_idempotency_keys.sql",
                "V4__baton_idempotency_keys_utc_datetime.sql"),
        /** {@link dev.baton.Inbox}: file {@code V2__baton_inbox.sql}, upgrade {@code V5__baton_inbox_utc_datetime.sql}. */
        INBOX("baton_inbox", "V2__baton_inbox.sql", "V5__baton_inbox_utc_datetime.sql"),
        /**
         * {@link dev.baton.Outbox}: file {@code V3__baton_outbox.sql}, upgrades {@code V6__baton_outbox_utc_datetime.sql}
         * and {@code V7__baton_outbox_receipt.sql}.
         */
        OUTBOX(
                "baton_outbox",
                "V3__baton_outbox.sql",
                "V6__baton_outbox_utc_datetime.sql",
                "V7__baton_outbox_receipt.sql"),
        /**
         * The receipts of the transactions {@code Baton.inTransaction} runs ({@code Baton.receipts()}): file {@code
         * V8__baton_receipts.sql}.
         */
        RECEIPTS("baton_receipts", "V8__baton_receipts.sql"),
        /**
         * The token buckets of rate-limited claim queues ({@code ClaimQueueBuilder.rateLimit}): file {@code
         * V9__baton_rate_limits.sql}.
         */
        RATE_LIMITS("baton_rate_limits", "V9__baton_rate_limits.sql"),
        /**
         * The audit trail of the operations console ({@code baton-console}'s {@code auditTable}): file {@code
         * V10__baton_console_audit.sql}.
         */
        CONSOLE_AUDIT("baton_console_audit", "V10__baton_console_audit.sql");

        private final String defaultName;
        private final String script;
        private final List<String> upgrades;

        OwnTable(String defaultName, String script, String... upgrades) {
            this.defaultName = defaultName;
            this.script = script;
            this.upgrades = List.of(upgrades);
        }

        /** The table's name in its DDL file. */
        public String defaultName() {
            return defaultName;
        }

        /** The file name of its DDL, e.g. {@code V2__baton_inbox.sql}. */
        public String script() {
            return script;
        }

        /**
         * The file names of the changes made to the table since its first release, oldest first, each with a version
         * above every earlier file of every table; a dialect ships those its database needs (e.g. only MySQL's
         * tables had zone-dependent timestamps to change).
         */
        public List<String> upgrades() {
            return upgrades;
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
     * The shipped upgrade files of {@code table} ({@link OwnTable#upgrades()}), oldest first; those the dialect does
     * not ship are left out. Baton runs them after {@link #ddlScript} when it creates the table. Default: the
     * resources of those names in the package of this object's class.
     */
    default List<URL> upgradeScripts(OwnTable table) {
        List<URL> scripts = new ArrayList<>();
        for (String name : table.upgrades()) {
            URL url = getClass().getResource(name);
            if (url != null) {
                scripts.add(url);
            }
        }
        return List.copyOf(scripts);
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
