-- Baton transactional outbox (dev.baton.Outbox), MySQL 8.0.1+ and MariaDB 10.6+.
-- The only copy of this DDL: baton.ownTables() runs this file, renaming the quoted table and the names derived
-- from it (<table>_<suffix>) for the table name given. Keep every name quoted.

CREATE TABLE `baton_outbox` (
    `id` BIGINT NOT NULL AUTO_INCREMENT PRIMARY KEY,
    `topic` VARCHAR(255) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL,
    `msg_key` VARCHAR(255) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NULL,
    `dedup_key` VARCHAR(255) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NULL,
    `payload` LONGBLOB NOT NULL,
    `headers` TEXT CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NULL,
    `status` INT NOT NULL,
    `lease_until` TIMESTAMP(6) NULL,
    `claim_token` BIGINT NULL,
    `attempts` INT NOT NULL DEFAULT 0,
    `next_attempt_at` TIMESTAMP(6) NULL,
    `last_error` VARCHAR(1000) NULL,
    `created_at` TIMESTAMP(6) NOT NULL DEFAULT CURRENT_TIMESTAMP(6)
) ENGINE=InnoDB;

CREATE UNIQUE INDEX `baton_outbox_dedup` ON `baton_outbox` (`dedup_key`);

CREATE INDEX `baton_outbox_claim` ON `baton_outbox` (`status`, `id`);

CREATE INDEX `baton_outbox_key` ON `baton_outbox` (`msg_key`, `status`, `id`);
