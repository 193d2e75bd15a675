package dev.baton.spi;

/**
 * What Baton needs to know about one database family, cut along its concerns: {@link #traits() capabilities and
 * limits}, the {@link #sql() SQL vocabulary}, the {@link #batchUpdate bounded batch update} that claims, sweeps and
 * bulk transitions run on, the statements and DDL of {@link #ownTables() Baton's own tables}, and the
 * {@link #diagnostics() reading of errors and plans}. The engine never switches on a database name; it asks the
 * dialect.
 *
 * <p>Dialect modules register an implementation through {@link java.util.ServiceLoader}. Implementations are
 * stateless and thread-safe. Every method here is abstract, so a decorator (such as a test dialect that shifts the
 * clock) states each part it forwards, and the compiler refuses one that forgets a part.
 */
public interface Dialect {

    /** A short name for messages, e.g. {@code postgres}. */
    String name();

    /**
     * True when this dialect serves the database described. Too-old versions must return false here, or throw
     * {@link dev.baton.UnsupportedDatabaseException} naming the minimum, rather than run with wrong claim semantics.
     */
    boolean supports(DatabaseInfo info);

    /** The database's capabilities and limits. */
    DialectTraits traits();

    /** Identifier quoting, the database clock, literals, types and index DDL. */
    SqlVocabulary sql();

    /**
     * Renders a bounded, skip-locked batch update once; the engine caches and reuses the result.
     *
     * @param spec what to update, independent of the database
     */
    BatchUpdate batchUpdate(BatchUpdateSpec spec);

    /** The statements and the shipped DDL of Baton's own tables (idempotency keys, inbox, outbox). */
    OwnTableDialect ownTables();

    /** The reading of driver errors, query plans and server settings. */
    Diagnostics diagnostics();

    /**
     * Notifications between sessions that wake workers in other processes ({@link Notifications#NONE} where the
     * database has none).
     */
    Notifications notifications();
}
