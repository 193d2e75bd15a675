-- Baton transaction receipts (Baton.inTransaction, Baton.receipts()), MySQL 8.0.1+ and MariaDB 10.6+.
-- Each transaction Baton runs writes one random receipt. When the connection is lost on the COMMIT, the retry writes
-- the same receipt first: a row already there means the lost COMMIT took effect, and the work is not run again; the
-- primary key makes the retry wait for the lost attempt if it is still running. Rows older than an hour are deleted
-- by Baton. created_at holds UTC (Baton writes UTC_TIMESTAMP(6)). The only copy of this DDL: baton.ownTables() runs
-- this file, renaming the quoted table and the names derived from it (<table>_<suffix>) for the table name given.
-- Keep every name quoted.

CREATE TABLE `baton_receipts` (
    `receipt` BIGINT NOT NULL,
    `created_at` DATETIME(6) NOT NULL,
    PRIMARY KEY (`receipt`),
    KEY `baton_receipts_created_at` (`created_at`)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin;
