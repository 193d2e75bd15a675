package dev.baton.postgres;

import dev.baton.spi.BatchUpdate;
import dev.baton.spi.BatchUpdateSpec;
import dev.baton.spi.DatabaseInfo;
import dev.baton.spi.Diagnostics;
import dev.baton.spi.Dialect;
import dev.baton.spi.DialectTraits;
import dev.baton.spi.Notifications;
import dev.baton.spi.OwnTableDialect;
import dev.baton.spi.SqlVocabulary;

/**
 * PostgreSQL 12 and later. A failed statement aborts the transaction (25P02), so inserts that may meet a duplicate
 * say {@code ON CONFLICT DO NOTHING}; a batch update is one statement, atomic on its own, so it runs in autocommit
 * mode. The parts: {@link PostgresSql}, {@link PostgresBatchUpdate}, {@link PostgresOwnTables},
 * {@link PostgresDiagnostics}, {@link PostgresNotifications}.
 */
public final class PostgresDialect implements Dialect {
    private static final DialectTraits TRAITS = DialectTraits.of(63)
            .failedStatementAbortsTransaction(true)
            .batchUpdateIsAtomic(true)
            .isolationPerTransaction(true);
    private static final SqlVocabulary SQL = new PostgresSql();
    private static final OwnTableDialect OWN_TABLES = new PostgresOwnTables();
    private static final Diagnostics DIAGNOSTICS = new PostgresDiagnostics();
    private static final Notifications NOTIFICATIONS = new PostgresNotifications();

    @Override
    public String name() {
        return "postgres";
    }

    @Override
    public boolean supports(DatabaseInfo info) {
        return info.productName().equalsIgnoreCase("PostgreSQL") && info.major() >= 12;
    }

    @Override
    public DialectTraits traits() {
        return TRAITS;
    }

    @Override
    public SqlVocabulary sql() {
        return SQL;
    }

    @Override
    public BatchUpdate batchUpdate(BatchUpdateSpec spec) {
        return PostgresBatchUpdate.render(spec);
    }

    @Override
    public OwnTableDialect ownTables() {
        return OWN_TABLES;
    }

    @Override
    public Diagnostics diagnostics() {
        return DIAGNOSTICS;
    }

    @Override
    public Notifications notifications() {
        return NOTIFICATIONS;
    }
}
