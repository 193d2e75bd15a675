package dev.baton;

import dev.baton.internal.Engine;
import dev.baton.internal.Identifiers;
import dev.baton.internal.SchemaCheck;
import dev.baton.spi.Dialect;
import java.sql.Statement;
import java.util.List;

/**
 * The DDL of Baton's own tables ({@link IdempotencyKeys}, {@link Inbox}), and a helper that creates them for quick
 * starts. Immutable and thread-safe.
 *
 * <p>For production schemas managed by Flyway or Liquibase, each dialect module ships the same DDL for the default
 * table names as classpath resources in its package: {@code dev/baton/postgres/}, {@code dev/baton/mysql/},
 * {@code dev/baton/sqlserver/}, files {@code V1__baton_idempotency_keys.sql} and {@code V2__baton_inbox.sql} (e.g.
 * Flyway {@code locations=classpath:dev/baton/postgres} with a history table of its own).
 *
 * <pre>{@code
 * baton.schema().createIdempotencyKeysTable(IdempotencyKeys.DEFAULT_TABLE);   // no-op if it exists
 * IdempotencyKeys keys = baton.idempotencyKeys(IdempotencyKeys.DEFAULT_TABLE);
 * }</pre>
 */
public final class Schema {
    private static final String KEYS_INDEX_SUFFIX = "_updated_at";
    private static final String INBOX_INDEX_SUFFIX = "_received_at";

    private final Engine engine;

    Schema(Engine engine) {
        this.engine = engine;
    }

    /**
     * The statements that create an idempotency-key table named {@code table} ({@code table} or {@code schema.table}),
     * without trailing semicolons. Runs no SQL.
     *
     * @throws InvalidIdentifierException if the name is not a plain identifier, or too long to derive its index name
     */
    public List<String> idempotencyKeysDdl(String table) {
        Dialect d = engine.dialect();
        return d.idempotencyKeysDdl(Identifiers.quoteTable(d, table), index(table, KEYS_INDEX_SUFFIX));
    }

    /**
     * The statements that create an inbox table named {@code table} ({@code table} or {@code schema.table}), without
     * trailing semicolons. Runs no SQL.
     *
     * @throws InvalidIdentifierException if the name is not a plain identifier, or too long to derive its index name
     */
    public List<String> inboxDdl(String table) {
        Dialect d = engine.dialect();
        return d.inboxDdl(Identifiers.quoteTable(d, table), index(table, INBOX_INDEX_SUFFIX));
    }

    /**
     * The statements that create an outbox table named {@code table}, without trailing semicolons. Runs no SQL.
     *
     * @throws InvalidIdentifierException if the name is not a plain identifier, or too long for its index names
     */
    public List<String> outboxDdl(String table) {
        Dialect d = engine.dialect();
        index(table, "_dedup");
        index(table, "_claim");
        String[] parts = Identifiers.splitTable(table);
        return d.outboxDdl(Identifiers.quoteTable(d, table), parts[parts.length - 1]);
    }

    /**
     * Creates the outbox table ({@link #outboxDdl}) unless a table of that name exists; safe to call at every start.
     *
     * @return true if this call created the table, false if it existed
     */
    public boolean createOutboxTable(String table) {
        return create(table, outboxDdl(table));
    }

    /**
     * Creates the idempotency-key table ({@link #idempotencyKeysDdl}) unless a table of that name exists; safe to call
     * at every start, also from several processes at once. Does not check the columns of an existing table.
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
     * also from several processes at once. Does not check the columns of an existing table.
     *
     * @return true if this call created the table, false if it existed
     * @throws InvalidIdentifierException if the name is not a plain identifier
     * @throws DataAccessException if the DDL fails
     */
    public boolean createInboxTable(String table) {
        return create(table, inboxDdl(table));
    }

    private boolean create(String table, List<String> ddl) {
        try {
            // One transaction where DDL is transactional (PostgreSQL, SQL Server): never half a table.
            return engine.transaction("create table " + table, c -> {
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
            boolean exists = engine.autocommit(
                    "look for table " + table, c -> new SchemaCheck(c, engine.dialect(), table).tableFound());
            if (exists) {
                return false;
            }
            throw e;
        }
    }

    /** The quoted index name {@code <bare table><suffix>}; index names live in the table's schema. */
    private String index(String table, String suffix) {
        Dialect d = engine.dialect();
        String[] parts = Identifiers.splitTable(table);
        String bare = parts[parts.length - 1];
        int max = d.maxIdentifierLength() - suffix.length();
        if (bare.length() > max) {
            throw new InvalidIdentifierException(
                    table,
                    "too long for its index name " + bare + suffix + ": at most " + max + " characters on " + d.name());
        }
        return Identifiers.quote(d, bare + suffix);
    }
}
