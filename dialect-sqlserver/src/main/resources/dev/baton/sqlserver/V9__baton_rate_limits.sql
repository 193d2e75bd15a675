-- Baton rate limits (ClaimQueueBuilder.rateLimit), SQL Server 2016+.
-- One row per rate-limited queue: a token bucket kept as the time at which it is full again (the generic cell rate
-- algorithm), in microseconds since 1970-01-01 UTC by the database clock. A claim of the queue locks its row, claims at
-- most the tokens the bucket holds, and moves full_at_micros on by the rows it claimed, in its own transaction: a
-- claim that rolls back takes no tokens. The only copy of this DDL: baton.ownTables() runs this file, renaming the
-- quoted table and the names derived from it (<table>_<suffix>) for the table name given. Keep every name quoted.

-- The primary key is named: the insert-if-absent probe names it in an index hint (WITH (INDEX(...))).
CREATE TABLE [baton_rate_limits] (
    [queue_name] NVARCHAR(100) COLLATE Latin1_General_100_BIN2 NOT NULL,
    [full_at_micros] BIGINT NOT NULL,
    CONSTRAINT [baton_rate_limits_pk] PRIMARY KEY ([queue_name])
);
