-- Baton inbox (dev.baton.Inbox), MySQL 8.0.1+ and MariaDB 10.6+.
-- The only copy of this DDL: baton.ownTables() runs this file, renaming the quoted table and the names derived
-- from it (<table>_<suffix>) for the table name given. Keep every name quoted.

CREATE TABLE `baton_inbox` (
    `source` VARCHAR(255) NOT NULL,
    `message_id` VARCHAR(255) NOT NULL,
    `receipt` BIGINT NOT NULL,
    `received_at` TIMESTAMP(6) NOT NULL DEFAULT CURRENT_TIMESTAMP(6),
    PRIMARY KEY (`source`, `message_id`),
    KEY `baton_inbox_received_at` (`received_at`)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin;
