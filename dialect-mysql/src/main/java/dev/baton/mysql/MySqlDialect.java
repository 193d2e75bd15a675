package dev.baton.mysql;

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
 * MySQL 8.0.1+ and MariaDB 10.6+ (both have {@code SKIP LOCKED}; neither has {@code UPDATE … RETURNING}). A batch
 * update is several statements, so it runs in an explicit READ COMMITTED transaction. The parts: {@link MySqlSql},
 * {@link MySqlBatchUpdate}, {@link MySqlOwnTables}, {@link MySqlDiagnostics}.
 */
public final class MySqlDialect implements Dialect {
    private static final DialectTraits TRAITS = DialectTraits.of(64);
    private static final SqlVocabulary SQL = new MySqlSql();
    private static final OwnTableDialect OWN_TABLES = new MySqlOwnTables();
    private static final Diagnostics DIAGNOSTICS = new MySqlDiagnostics();

    @Override
    public String name() {
        return "mysql";
    }

    @Override
    public boolean supports(DatabaseInfo info) {
        if (info.isMariaDb()) {
            return info.atLeast(10, 6);
        }
        return info.productName().equalsIgnoreCase("MySQL") && info.atLeast(8, 0);
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
        return MySqlBatchUpdate.render(spec);
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
        return Notifications.NONE; // MySQL and MariaDB have no notifications between sessions
    }
}
