-- Baton idempotency keys (dev.baton.IdempotencyKeys), SQL Server 2016+.
-- The only copy of this DDL: baton.ownTables() runs this file, renaming the quoted table and the names derived
-- from it (<table>_<suffix>) for the table name given. Keep every name quoted.

CREATE TABLE [baton_idempotency_keys] (
    [scope] NVARCHAR(255) COLLATE Latin1_General_100_BIN2 NOT NULL,
    [idempotency_key] NVARCHAR(255) COLLATE Latin1_General_100_BIN2 NOT NULL,
    [fingerprint] NVARCHAR(255) COLLATE Latin1_General_100_BIN2 NOT NULL,
    [state] VARCHAR(16) NOT NULL CHECK ([state] IN ('in_progress', 'completed')),
    [token] BIGINT NOT NULL,
    [attempts] INT NOT NULL,
    [locked_until] DATETIME2(6) NULL,
    [response] VARBINARY(MAX) NULL,
    [created_at] DATETIME2(6) NOT NULL,
    [updated_at] DATETIME2(6) NOT NULL,
    CONSTRAINT [baton_idempotency_keys_pk] PRIMARY KEY NONCLUSTERED ([scope], [idempotency_key])
);

-- The primary key is named: the insert-if-absent probe names it in an index hint (WITH (INDEX(...))).
-- Clustered on the write-once creation time, so the table is no heap (a heap keeps empty pages after deletes) and
-- no write moves a row: begin-again and completion set updated_at, and a clustering key on it would move the row
-- and rewrite its primary-key entry on each of them. The primary key stays NONCLUSTERED: two NVARCHAR(255) columns
-- take up to 1,020 bytes, over the 900-byte clustered-key limit. Retention deletes by updated_at, through its own
-- index.
CREATE CLUSTERED INDEX [baton_idempotency_keys_created_at] ON [baton_idempotency_keys] ([created_at]);

CREATE INDEX [baton_idempotency_keys_updated_at] ON [baton_idempotency_keys] ([updated_at]);
