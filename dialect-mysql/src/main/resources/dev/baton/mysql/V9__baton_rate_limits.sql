-- Baton rate limits (ClaimQueueBuilder.rateLimit), MySQL 8.0.1+ and MariaDB 10.6+.
-- One row per rate-limited queue: a token bucket kept as the time at which it is full again (the generic cell rate
-- algorithm), in microseconds since 1970-01-01 UTC by the database clock (a number, so no session time zone enters).
-- A claim of the queue locks its row, claims at most the tokens the bucket holds, and moves full_at_micros on by the
-- rows it claimed, in its own transaction: a claim that rolls back takes no tokens. The only copy of this DDL:
-- baton.ownTables() runs this file, renaming the quoted table and the names derived from it (<table>_<suffix>) for
-- the table name given. Keep every name quoted.

CREATE TABLE `baton_rate_limits` (
    `queue_name` VARCHAR(100) NOT NULL,
    `full_at_micros` BIGINT NOT NULL,
    PRIMARY KEY (`queue_name`)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin;
