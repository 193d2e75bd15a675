package dev.baton.internal.tables;

import dev.baton.SchemaMismatchException;
import dev.baton.internal.Engine;
import dev.baton.internal.SchemaCheck;
import dev.baton.internal.values.Identifiers;
import dev.baton.spi.Dialect;
import dev.baton.spi.OwnTableDialect.OwnTable;
import java.net.URL;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Refuses one of Baton's own tables that lacks the time-column upgrade file the dialect ships ({@code
 * *_utc_datetime.sql}), naming the file: a table created by an earlier release and left as it was would let this
 * release misbehave without an error. MySQL's and MariaDB's tables of the first release hold {@code TIMESTAMP(6)}
 * columns, which this release writes and compares with {@code UTC_TIMESTAMP(6)}: read in each session's zone, a lease
 * taken by a service at +09:00 looks 9 hours expired to one at +00:00, and both start the same key. One metadata
 * query, and none where the dialect ships no such upgrade (PostgreSQL's and SQL Server's tables hold instants or UTC
 * from their first file). An outbox without the later receipt upgrade fails at its first enqueue, naming the column.
 */
public final class OwnTableUpgrades {
    /** The time columns each table has, which the {@code *_utc_datetime} upgrade makes zone-safe. */
    private static final Map<OwnTable, List<String>> TIME_COLUMNS = Map.of(
            OwnTable.IDEMPOTENCY_KEYS, List.of("locked_until", "created_at", "updated_at"),
            OwnTable.INBOX, List.of("received_at"),
            OwnTable.OUTBOX, List.of("lease_until", "next_attempt_at", "created_at"));

    private static final String UTC_UPGRADE = "_utc_datetime.sql";

    private OwnTableUpgrades() {}

    /**
     * Checks {@code table} (an existing table of kind {@code which}; a missing one is left to the statements that use
     * it) for the time-column upgrade the dialect ships.
     *
     * @throws SchemaMismatchException naming each missing upgrade file, with its statements for this table as the DDL
     * @throws dev.baton.DataAccessException if the metadata cannot be read
     */
    public static void require(Engine engine, OwnTable which, String table) {
        Dialect dialect = engine.dialect();
        List<URL> upgrades = new ArrayList<>();
        for (URL upgrade : dialect.ownTables().upgradeScripts(which)) {
            if (fileName(upgrade).endsWith(UTC_UPGRADE)) {
                upgrades.add(upgrade);
            }
        }
        if (upgrades.isEmpty()) {
            return;
        }
        engine.tx().ownTransaction("check the columns of " + table, c -> {
            SchemaCheck check = new SchemaCheck(c, dialect, table);
            if (!check.tableFound()) {
                return null;
            }
            List<String> problems = new ArrayList<>();
            List<String> ddl = new ArrayList<>();
            for (URL upgrade : upgrades) {
                String file = fileName(upgrade);
                String missing = missing(check, dialect, which, table);
                if (missing != null) {
                    problems.add("it predates the upgrade file " + file + " (resource " + resource(upgrade)
                            + " of Baton's " + dialect.name() + " dialect): " + missing + "; run that file on the"
                            + " table (Flyway or Liquibase run it as shipped; for another table name, use the"
                            + " statements below), then start again");
                    ddl.addAll(statements(upgrade, dialect, which, table));
                }
            }
            if (!problems.isEmpty()) {
                throw new SchemaMismatchException(table, problems, ddl);
            }
            return null;
        });
    }

    /** What shows that the time-column upgrade was not run on the table (a zone-dependent column), or null. */
    private static String missing(SchemaCheck check, Dialect dialect, OwnTable which, String table) {
        for (String column : TIME_COLUMNS.getOrDefault(which, List.of())) {
            SchemaCheck.ColumnInfo info = check.column(column);
            String fix = info == null
                    ? null
                    : dialect.sql()
                            .zoneSafeTimestampFix(
                                    Identifiers.quoteTable(dialect, table),
                                    dialect.sql().quote(column),
                                    info.typeName(),
                                    info.nullable());
            if (fix != null) {
                return "column " + info.name() + " is " + info.typeName() + ", whose values depend on the session's"
                        + " time zone, while Baton writes and compares UTC ("
                        + dialect.sql().currentTimestamp()
                        + "), so services in different zones would disagree about leases and ages";
            }
        }
        return null;
    }

    private static List<String> statements(URL upgrade, Dialect dialect, OwnTable which, String table) {
        String[] parts = Identifiers.splitTable(table);
        return OwnTableSql.statements(
                OwnTableSql.read(upgrade),
                dialect,
                which.defaultName(),
                Identifiers.quoteTable(dialect, table),
                parts[parts.length - 1],
                table);
    }

    private static String fileName(URL url) {
        String path = url.getPath();
        return path.substring(path.lastIndexOf('/') + 1);
    }

    private static String resource(URL url) {
        String path = url.getPath();
        int jar = path.lastIndexOf("!/");
        if (jar >= 0) {
            return path.substring(jar + 2);
        }
        int dev = path.lastIndexOf("/dev/baton/");
        return dev >= 0 ? path.substring(dev + 1) : path;
    }
}
