-- Baton idempotency keys (dev.baton.IdempotencyKeys), MySQL 8.0.1+ and MariaDB 10.6+.
-- The only copy of this DDL: baton.ownTables() runs this file, renaming the quoted table and the names derived
-- from it (<table>_<suffix>) for the table name given. Keep every name quoted.

CREATE TABLE `baton_idempotency_keys` (
    `scope` VARCHAR(255) NOT NULL,
    `idempotency_key` VARCHAR(255) NOT NULL,
    `fingerprint` VARCHAR(255) NOT NULL,
    `state` VARCHAR(16) NOT NULL CHECK (`state` IN ('in_progress', 'completed')),
    `token` BIGINT NOT NULL,
    `attempts` INT NOT NULL,
    `locked_until` TIMESTAMP(6) NULL,
    `response` MEDIUMBLOB NULL,
    `created_at` TIMESTAMP(6) NOT NULL DEFAULT CURRENT_TIMESTAMP(6),
    `updated_at` TIMESTAMP(6) NOT NULL DEFAULT CURRENT_TIMESTAMP(6),
    PRIMARY KEY (`scope`, `idempotency_key`),
    KEY `baton_idempotency_keys_updated_at` (`updated_at`)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin;
