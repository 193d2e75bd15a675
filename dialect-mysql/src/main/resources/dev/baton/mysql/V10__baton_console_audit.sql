-- Baton console audit trail (baton-console, BatonConsole.Builder.auditTable), MySQL 8.0.1+ and MariaDB 10.6+.
-- One row per action an operator confirmed and per refused attempt (a reader's POST, a missing or forged CSRF token):
-- who, what, on which queue and row, the verdict, whether "even if it may have been sent" was ticked, the evidence as
-- typed (byte for byte: utf8mb4, a binary collation), whether anything changed and the short result (the losing side
-- of a race is 'unchanged'). at_utc is UTC by the clock of the console's process (no session time zone enters a
-- DATETIME). Every instance of one deployment writes and reads the same table, so the trail survives restarts and
-- shows every instance's actions. The only copy of this DDL: baton.ownTables() runs this file, renaming the quoted
-- table and the names derived from it (<table>_<suffix>) for the table name given. Keep every name quoted.

CREATE TABLE `baton_console_audit` (
    `id` BIGINT NOT NULL AUTO_INCREMENT,
    `at_utc` DATETIME(6) NOT NULL,
    `principal` VARCHAR(200) NOT NULL,
    `action` VARCHAR(40) NOT NULL,
    `queue_name` VARCHAR(200) NOT NULL,
    `target` VARCHAR(400) NULL,
    `verdict` VARCHAR(200) NULL,
    `force_flag` SMALLINT NOT NULL,
    `evidence` TEXT NULL,
    `outcome` VARCHAR(20) NOT NULL,
    `result` VARCHAR(1000) NOT NULL,
    PRIMARY KEY (`id`),
    KEY `baton_console_audit_row` (`queue_name`, `target`, `id`)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin;
