package dev.baton;

import dev.baton.internal.Engine;
import dev.baton.internal.SchemaCheck;
import dev.baton.internal.tables.OwnTableSql;
import dev.baton.spi.OwnTableDialect.OwnTable;
import java.sql.Statement;
import java.util.List;

/**
 * Baton's own tables ({@link IdempotencyKeys}, {@link Inbox}, {@link Outbox}, the transaction receipts of
 * {@link Baton#inTransaction}, the token buckets of {@link ClaimQueueBuilder#rateLimit}): their DDL, and a helper that creates
 * them for quick starts. Immutable and thread-safe; get one from {@link Baton#ownTables()}.
 *
 * <p>The DDL exists once per database, as the SQL files each dialect module ships in its package for the default
 * table names: {@code dev/baton/postgres/}, {@code dev/baton/mysql/}, {@code dev/baton/sqlserver/}, files
 * {@code V1__baton_idempotency_keys.sql}, {@code V2__baton_inbox.sql}, {@code V3__baton_outbox.sql}, {@code V8__baton_receipts.sql} and {@code V9__baton_rate_limits.sql}. Production
 * schemas managed by Flyway or Liquibase run those files (e.g. Flyway {@code locations=classpath:dev/baton/postgres}
 * with a history table of its own); the methods here read the same files and rename the table, and the names derived
 * from it (indexes, {@code <table>_<suffix>}), for the table name given.
 *
 * <pre>{@code
 * baton.ownTables().createIdempotencyKeysTable(IdempotencyKeys.DEFAULT_TABLE);   // no-op if it exists
 * IdempotencyKeys keys = baton.idempotencyKeys(IdempotencyKeys.DEFAULT_TABLE);
 * }</pre>
 */
public final class OwnTables {
    private final Engine engine;

    OwnTables(Engine engine) {
        this.engine = engine;
    }

    /**
     * The statements that create an idempotency-key table named {@code table} ({@code table} or {@code schema.table}),
     * without trailing semicolons: the dialect's {@code V1__baton_idempotency_keys.sql}, renamed. Runs no SQL.
     *
     * @throws InvalidIdentifierException if the name is not a plain identifier, or too long to derive its index name
     * @throws UnsupportedDatabaseException if the dialect ships no DDL for the table
     */
    public List<String> idempotencyKeysDdl(String table) {
        return OwnTableSql.ddl(engine.dialect(), OwnTable.IDEMPOTENCY_KEYS, table);
    }

    /**
     * The statements that create an inbox table named {@code table} ({@code table} or {@code schema.table}), without
     * trailing semicolons: the dialect's {@code V2__baton_inbox.sql}, renamed. Runs no SQL.
     *
     * @throws InvalidIdentifierException if the name is not a plain identifier, or too long to derive its index name
     * @throws UnsupportedDatabaseException if the dialect ships no DDL for the table
     */
    public List<String> inboxDdl(String table) {
        return OwnTableSql.ddl(engine.dialect(), OwnTable.INBOX, table);
    }

    /**
     * The statements that create an outbox table named {@code table} ({@code table} or {@code schema.table}), without
     * trailing semicolons: the dialect's {@code V3__baton_outbox.sql}, renamed. Runs no SQL.
     *
     * @throws InvalidIdentifierException if the name is not a plain identifier, or too long for its index names
     * @throws UnsupportedDatabaseException if the dialect ships no DDL for the table
     */
    public List<String> outboxDdl(String table) {
        return OwnTableSql.ddl(engine.dialect(), OwnTable.OUTBOX, table);
    }

    /**
     * Creates the outbox table ({@link #outboxDdl}) unless a table of that name exists; safe to call at every start.
     * Leaves an existing table as it is; building the {@link Outbox} refuses one that lacks the dialect's time-column
     * upgrade file, naming it.
     *
     * @return true if this call created the table, false if it existed
     */
    public boolean createOutboxTable(String table) {
        return create(table, outboxDdl(table));
    }

    /**
     * Creates the idempotency-key table ({@link #idempotencyKeysDdl}) unless a table of that name exists; safe to call
     * at every start, also from several processes at once. Leaves an existing table as it is; building the {@link
     * IdempotencyKeys} refuses one that lacks the dialect's time-column upgrade file, naming it.
     *
     * @return true if this call created the table, false if it existed
     * @throws InvalidIdentifierException if the name is not a plain identifier
     * @throws DataAccessException if the DDL fails
     */
    public boolean createIdempotencyKeysTable(String table) {
        return create(table, idempotencyKeysDdl(table));
    }

    /**
     * Creates the inbox table ({@link #inboxDdl}) unless a table of that name exists; safe to call at every start,
     * also from several processes at once. Leaves an existing table as it is; building the {@link Inbox} refuses one
     * that lacks the dialect's time-column upgrade file, naming it.
     *
     * @return true if this call created the table, false if it existed
     * @throws InvalidIdentifierException if the name is not a plain identifier
     * @throws DataAccessException if the DDL fails
     */
    public boolean createInboxTable(String table) {
        return create(table, inboxDdl(table));
    }

    /**
     * The statements that create a transaction-receipt table named {@code table} ({@code table} or {@code
     * schema.table}; default {@link Baton.Builder#receiptsTable}), without trailing semicolons: the dialect's {@code
     * V8__baton_receipts.sql}, renamed. Runs no SQL.
     *
     * @throws InvalidIdentifierException if the name is not a plain identifier, or too long to derive its index name
     * @throws UnsupportedDatabaseException if the dialect ships no DDL for the table
     */
    public List<String> receiptsDdl(String table) {
        return OwnTableSql.ddl(engine.dialect(), OwnTable.RECEIPTS, table);
    }

    /**
     * Creates the transaction-receipt table ({@link #receiptsDdl}) unless a table of that name exists; safe to call at
     * every start, also from several processes at once. With it, {@link Baton#inTransaction} reads a commit whose
     * reply was lost back instead of refusing to guess.
     *
     * @return true if this call created the table, false if it existed
     * @throws InvalidIdentifierException if the name is not a plain identifier
     * @throws DataAccessException if the DDL fails
     */
    public boolean createReceiptsTable(String table) {
        return create(table, receiptsDdl(table));
    }

    /**
     * The statements that create a rate-limit table named {@code table} ({@code table} or {@code schema.table};
     * default {@link RateLimit#DEFAULT_TABLE}), without trailing semicolons: the dialect's {@code
     * V9__baton_rate_limits.sql}, renamed. Runs no SQL.
     *
     * @throws InvalidIdentifierException if the name is not a plain identifier, or too long to derive its index name
     * @throws UnsupportedDatabaseException if the dialect ships no DDL for the table
     */
    public List<String> rateLimitsDdl(String table) {
        return OwnTableSql.ddl(engine.dialect(), OwnTable.RATE_LIMITS, table);
    }

    /**
     * Creates the rate-limit table ({@link #rateLimitsDdl}) that the queues with a {@link ClaimQueueBuilder#rateLimit
     * rate limit} keep their token buckets in, unless a table of that name exists; safe to call at every start, also
     * from several processes at once.
     *
     * @return true if this call created the table, false if it existed
     * @throws InvalidIdentifierException if the name is not a plain identifier
     * @throws DataAccessException if the DDL fails
     */
    public boolean createRateLimitsTable(String table) {
        return create(table, rateLimitsDdl(table));
    }

    /**
     * The statements that create the operations console's audit table named {@code table} ({@code table} or {@code
     * schema.table}; default {@code baton_console_audit}), without trailing semicolons: the dialect's {@code
     * V10__baton_console_audit.sql}, renamed. Runs no SQL.
     *
     * @throws InvalidIdentifierException if the name is not a plain identifier, or too long to derive its index name
     * @throws UnsupportedDatabaseException if the dialect ships no DDL for the table
     */
    public List<String> consoleAuditDdl(String table) {
        return OwnTableSql.ddl(engine.dialect(), OwnTable.CONSOLE_AUDIT, table);
    }

    /**
     * Creates the console's audit table ({@link #consoleAuditDdl}) unless a table of that name exists; safe to call at
     * every start, also from several processes at once.
     *
     * @return true if this call created the table, false if it existed
     * @throws InvalidIdentifierException if the name is not a plain identifier
     * @throws DataAccessException if the DDL fails
     */
    public boolean createConsoleAuditTable(String table) {
        return create(table, consoleAuditDdl(table));
    }

    private boolean create(String table, List<String> ddl) {
        try {
            // One transaction where DDL is transactional (PostgreSQL, SQL Server): never half a table. Never the host's
            // transaction: MySQL and MariaDB commit an open transaction before DDL.
            return engine.tx().ownTransaction("create table " + table, c -> {
                if (new SchemaCheck(c, engine.dialect(), table).tableFound()) {
                    return false;
                }
                try (Statement s = c.createStatement()) {
                    for (String sql : ddl) {
                        s.execute(sql);
                    }
                }
                return true;
            });
        } catch (DataAccessException e) {
            // another process created it between our check and our CREATE
            boolean exists = engine.tx()
                    .ownTransaction(
                            "look for table " + table, c -> new SchemaCheck(c, engine.dialect(), table).tableFound());
            if (exists) {
                return false;
            }
            throw e;
        }
    }
}
