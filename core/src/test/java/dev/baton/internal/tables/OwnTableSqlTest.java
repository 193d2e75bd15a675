package dev.baton.internal.tables;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.baton.InvalidIdentifierException;
import dev.baton.UnsupportedDatabaseException;
import dev.baton.spi.BatchUpdate;
import dev.baton.spi.BatchUpdateSpec;
import dev.baton.spi.ColumnType;
import dev.baton.spi.DatabaseInfo;
import dev.baton.spi.Diagnostics;
import dev.baton.spi.Dialect;
import dev.baton.spi.DialectTraits;
import dev.baton.spi.OwnTableDialect;
import dev.baton.spi.OwnTableDialect.OwnTable;
import dev.baton.spi.SqlVocabulary;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Own-table DDL is read from the dialect's file and renamed by whole quoted identifiers, nothing else. */
class OwnTableSqlTest {
    private static final String SCRIPT = "-- Baton's inbox; \"baton_inbox\" in a comment stays as it is\n"
            + "\n"
            + "CREATE TABLE [baton_inbox] (\n"
            + "    [source] VARCHAR(255) NOT NULL DEFAULT 'baton_inbox; it''s [baton_inbox]',\n"
            + "    [baton_inbox_count] INT NOT NULL,\n"
            + "    PRIMARY KEY ([source])\n"
            + ");\n"
            + "\n"
            + "CREATE INDEX [baton_inbox_received_at] ON [baton_inbox] ([source]);\n";

    /** Brackets on both sides, as SQL Server quotes: the opening and closing quotes differ. */
    private static final Dialect BRACKETS = new Dialect() {
        @Override
        public String name() {
            return "brackets";
        }

        @Override
        public boolean supports(DatabaseInfo info) {
            return false;
        }

        @Override
        public DialectTraits traits() {
            return DialectTraits.of(30);
        }

        @Override
        public SqlVocabulary sql() {
            return new SqlVocabulary() {
                @Override
                public String quote(String identifier) {
                    return "[" + identifier + "]";
                }

                @Override
                public String currentTimestamp() {
                    return "NOW()";
                }

                @Override
                public String plusMillis(String timestampSql, long millis) {
                    throw new UnsupportedOperationException();
                }

                @Override
                public String plusMillisParam(String timestampSql) {
                    throw new UnsupportedOperationException();
                }

                @Override
                public String columnType(ColumnType type) {
                    throw new UnsupportedOperationException();
                }
            };
        }

        @Override
        public BatchUpdate batchUpdate(BatchUpdateSpec spec) {
            throw new UnsupportedOperationException();
        }

        @Override
        public OwnTableDialect ownTables() {
            return new OwnTableDialect() {}; // ships no files
        }

        @Override
        public Diagnostics diagnostics() {
            throw new UnsupportedOperationException();
        }

        @Override
        public dev.baton.spi.Notifications notifications() {
            return dev.baton.spi.Notifications.NONE;
        }
    };

    private static List<String> renamed(String script, String table) {
        String[] parts = table.split("\\.");
        String quoted =
                String.join(".", List.of(parts).stream().map(p -> "[" + p + "]").toList());
        return OwnTableSql.statements(script, BRACKETS, "baton_inbox", quoted, parts[parts.length - 1], table);
    }

    @Test
    void theDefaultNameGivesTheFileStatementByStatement() {
        assertEquals(
                List.of(
                        "CREATE TABLE [baton_inbox] (\n"
                                + "    [source] VARCHAR(255) NOT NULL DEFAULT 'baton_inbox; it''s [baton_inbox]',\n"
                                + "    [baton_inbox_count] INT NOT NULL,\n"
                                + "    PRIMARY KEY ([source])\n"
                                + ")",
                        "CREATE INDEX [baton_inbox_received_at] ON [baton_inbox] ([source])"),
                renamed(SCRIPT, "baton_inbox"));
    }

    @Test
    void anotherNameRenamesTheTableAndTheNamesDerivedFromItButNotLiterals() {
        List<String> ddl = renamed(SCRIPT, "app.events");
        assertEquals(
                "CREATE TABLE [app].[events] (\n"
                        + "    [source] VARCHAR(255) NOT NULL DEFAULT 'baton_inbox; it''s [baton_inbox]',\n"
                        + "    [events_count] INT NOT NULL,\n"
                        + "    PRIMARY KEY ([source])\n"
                        + ")",
                ddl.get(0));
        assertEquals("CREATE INDEX [events_received_at] ON [app].[events] ([source])", ddl.get(1));
    }

    @Test
    void aDerivedNameMustFitTheIdentifierLimit() {
        String longest = "e".repeat(30 - "_received_at".length());
        renamed(SCRIPT, longest);
        assertThrows(InvalidIdentifierException.class, () -> renamed(SCRIPT, longest + "e"));
    }

    @Test
    void aFileThatNamesTheTableWithoutQuotesIsRefused() {
        assertThrows(
                IllegalStateException.class,
                () -> renamed(
                        "CREATE TABLE [baton_inbox] ([a] INT);\nCREATE INDEX baton_inbox_a ON [baton_inbox] ([a]);",
                        "t"));
    }

    @Test
    void aDialectThatShipsNoFileSaysSo() {
        assertThrows(UnsupportedDatabaseException.class, () -> OwnTableSql.ddl(BRACKETS, OwnTable.INBOX, "inbox"));
    }
}
