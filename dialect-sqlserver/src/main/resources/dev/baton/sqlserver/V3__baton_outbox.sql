-- Baton transactional outbox (dev.baton.Outbox), SQL Server 2016+.
-- The only copy of this DDL: baton.ownTables() runs this file, renaming the quoted table and the names derived
-- from it (<table>_<suffix>) for the table name given. Keep every name quoted.

CREATE TABLE [baton_outbox] (
    [id] BIGINT IDENTITY(1,1) NOT NULL PRIMARY KEY,
    [topic] NVARCHAR(255) COLLATE Latin1_General_100_BIN2 NOT NULL,
    [msg_key] NVARCHAR(255) COLLATE Latin1_General_100_BIN2 NULL,
    [dedup_key] NVARCHAR(255) COLLATE Latin1_General_100_BIN2 NULL,
    [payload] VARBINARY(MAX) NOT NULL,
    [headers] NVARCHAR(MAX) NULL,
    [status] INT NOT NULL,
    [lease_until] DATETIME2(6) NULL,
    [claim_token] BIGINT NULL,
    [attempts] INT NOT NULL DEFAULT 0,
    [next_attempt_at] DATETIME2(6) NULL,
    [last_error] NVARCHAR(1000) NULL,
    [created_at] DATETIME2(6) NOT NULL
);

CREATE UNIQUE INDEX [baton_outbox_dedup] ON [baton_outbox] ([dedup_key]) WHERE [dedup_key] IS NOT NULL;

CREATE INDEX [baton_outbox_claim] ON [baton_outbox] ([status], [id]);

CREATE INDEX [baton_outbox_key] ON [baton_outbox] ([msg_key], [status], [id]);
