-- Baton inbox (dev.baton.Inbox), SQL Server 2016+.
-- The only copy of this DDL: baton.ownTables() runs this file, renaming the quoted table and the names derived
-- from it (<table>_<suffix>) for the table name given. Keep every name quoted.

CREATE TABLE [baton_inbox] (
    [source] NVARCHAR(255) COLLATE Latin1_General_100_BIN2 NOT NULL,
    [message_id] NVARCHAR(255) COLLATE Latin1_General_100_BIN2 NOT NULL,
    [receipt] BIGINT NOT NULL,
    [received_at] DATETIME2(6) NOT NULL,
    PRIMARY KEY NONCLUSTERED ([source], [message_id])
);

CREATE INDEX [baton_inbox_received_at] ON [baton_inbox] ([received_at]);
