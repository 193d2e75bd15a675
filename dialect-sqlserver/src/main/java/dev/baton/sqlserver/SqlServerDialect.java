package dev.baton.sqlserver;

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
 * SQL Server 2016 and later. Batches stay at or below 500 rows, under the lock-escalation threshold. The parts:
 * {@link SqlServerSql}, {@link SqlServerBatchUpdate}, {@link SqlServerOwnTables}, {@link SqlServerDiagnostics}.
 */
public final class SqlServerDialect implements Dialect {
    private static final DialectTraits TRAITS = DialectTraits.of(128).maxBatchSize(500);
    private static final SqlVocabulary SQL = new SqlServerSql();
    private static final OwnTableDialect OWN_TABLES = new SqlServerOwnTables();
    private static final Diagnostics DIAGNOSTICS = new SqlServerDiagnostics();

    @Override
    public String name() {
        return "sqlserver";
    }

    @Override
    public boolean supports(DatabaseInfo info) {
        // Azure SQL reports 12: accepted by engine edition, see SqlServerDiagnostics.supportsOnAsking
        return SqlServerDiagnostics.isSqlServer(info) && info.major() >= 13;
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
        return SqlServerBatchUpdate.render(spec);
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
        return Notifications.NONE; // Service Broker is not used: workers poll
    }
}
