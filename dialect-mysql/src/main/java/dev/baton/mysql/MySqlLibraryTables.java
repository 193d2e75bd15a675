package dev.baton.mysql;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import javax.sql.DataSource;

/**
 * The SQL of Baton's own tables (idempotency keys, inbox) on MySQL and MariaDB. Tables use {@code utf8mb4_bin}, so
 * keys compare exactly (the default collations ignore case); core refuses keys with trailing spaces, which
 * {@code PAD SPACE} collations would ignore. Timestamps are {@code TIMESTAMP(6)}, stored in UTC whatever the session
 * time zone, so lease arithmetic is the same for every connection.
 */
final class MySqlLibraryTables {
    /** Connector/J and MariaDB Connector/J may send a binary value escaped, up to twice its size, plus the SQL. */
    private static final long PACKET_OVERHEAD = 64 * 1024;

    private MySqlLibraryTables() {}

    static List<String> idempotencyKeysDdl(String table, String index) {
        return List.of("CREATE TABLE " + table + " (\n"
                + "    `scope` VARCHAR(255) NOT NULL,\n"
                + "    `idempotency_key` VARCHAR(255) NOT NULL,\n"
                + "    `fingerprint` VARCHAR(255) NOT NULL,\n"
                + "    `state` VARCHAR(16) NOT NULL CHECK (`state` IN ('in_progress', 'completed')),\n"
                + "    `token` BIGINT NOT NULL,\n"
                + "    `attempts` INT NOT NULL,\n"
                + "    `locked_until` TIMESTAMP(6) NULL,\n"
                + "    `response` MEDIUMBLOB NULL,\n"
                + "    `created_at` TIMESTAMP(6) NOT NULL DEFAULT CURRENT_TIMESTAMP(6),\n"
                + "    `updated_at` TIMESTAMP(6) NOT NULL DEFAULT CURRENT_TIMESTAMP(6),\n"
                + "    PRIMARY KEY (`scope`, `idempotency_key`),\n"
                + "    KEY " + index + " (`updated_at`)\n"
                + ") ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin");
    }

    static List<String> inboxDdl(String table, String index) {
        return List.of("CREATE TABLE " + table + " (\n"
                + "    `source` VARCHAR(255) NOT NULL,\n"
                + "    `message_id` VARCHAR(255) NOT NULL,\n"
                + "    `receipt` BIGINT NOT NULL,\n"
                + "    `received_at` TIMESTAMP(6) NOT NULL DEFAULT CURRENT_TIMESTAMP(6),\n"
                + "    PRIMARY KEY (`source`, `message_id`),\n"
                + "    KEY " + index + " (`received_at`)\n"
                + ") ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin");
    }

    /** Single-table DELETE takes LIMIT; the index on the age column keeps the locks to the rows deleted. */
    static String deleteBatch(String table, String where, int limit) {
        return "DELETE FROM " + table + " WHERE " + where + " LIMIT " + limit;
    }

    /**
     * Without STRICT_TRANS_TABLES or STRICT_ALL_TABLES, MySQL truncates an over-long value with a warning; a statement
     * larger than max_allowed_packet fails with 1153 and the connection is dropped.
     */
    static List<String> storageProblems(DataSource dataSource, long largestValueBytes) throws SQLException {
        List<String> problems = new ArrayList<>();
        try (Connection c = dataSource.getConnection();
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT @@SESSION.sql_mode, @@SESSION.max_allowed_packet")) {
            rs.next();
            String mode = String.valueOf(rs.getString(1));
            long packet = rs.getLong(2);
            String upper = mode.toUpperCase(Locale.ROOT);
            if (!upper.contains("STRICT_TRANS_TABLES") && !upper.contains("STRICT_ALL_TABLES")) {
                problems.add("sql_mode is '" + mode + "', without STRICT_TRANS_TABLES or STRICT_ALL_TABLES, so the"
                        + " server would silently truncate a value that does not fit; add STRICT_TRANS_TABLES to"
                        + " sql_mode (the server default since MySQL 5.7 and MariaDB 10.2.4)");
            }
            long needed = 2 * largestValueBytes + PACKET_OVERHEAD;
            if (packet < needed) {
                problems.add("max_allowed_packet is " + packet + " bytes; values of up to " + largestValueBytes
                        + " bytes need at least " + needed + " (twice the value, as drivers may escape it, plus 64"
                        + " KiB); raise max_allowed_packet or lower maxResponseBytes");
            }
        }
        return problems;
    }
}
