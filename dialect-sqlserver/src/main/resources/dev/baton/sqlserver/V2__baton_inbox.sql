-- Baton inbox (dev.baton.Inbox), SQL Server 2016+.
-- The only copy of this DDL: baton.ownTables() runs this file, renaming the quoted table and the names derived
-- from it (<table>_<suffix>) for the table name given. Keep every name quoted.

CREATE TABLE [baton_inbox] (
    [source] NVARCHAR(255) COLLATE Latin1_General_100_BIN2 NOT NULL,
    [message_id] NVARCHAR(255) COLLATE Latin1_General_100_BIN2 NOT NULL,
    [receipt] BIGINT NOT NULL,
    [received_at] DATETIME2(6) NOT NULL,
    CONSTRAINT [baton_inbox_pk] PRIMARY KEY NONCLUSTERED ([source], [message_id])
);

-- The primary key is named: the insert-if-absent probe names it in an index hint (WITH (INDEX(...))).
-- Clustered on the retention column, so the table is no heap: retention deletes the oldest rows, which sit
-- together, and their pages are freed (a heap keeps empty pages after deletes). The primary key stays
-- NONCLUSTERED: two NVARCHAR(255) columns take up to 1,020 bytes, over the 900-byte clustered-key limit.
CREATE CLUSTERED INDEX [baton_inbox_received_at] ON [baton_inbox] ([received_at]);
