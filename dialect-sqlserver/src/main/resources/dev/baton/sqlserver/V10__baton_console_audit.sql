-- Baton console audit trail (baton-console, BatonConsole.Builder.auditTable), SQL Server 2016+.
-- One row per action an operator confirmed and per refused attempt (a reader's POST, a missing or forged CSRF token):
-- who, what, on which queue and row, the verdict, whether "even if it may have been sent" was ticked, the evidence as
-- typed (byte for byte: NVARCHAR), whether anything changed and the short result (the losing side of a race is
-- 'unchanged'). at_utc is UTC by the clock of the console's process. Every instance of one deployment writes and reads
-- the same table, so the trail survives restarts and shows every instance's actions. The only copy of this DDL:
-- baton.ownTables() runs this file, renaming the quoted table and the names derived from it (<table>_<suffix>) for
-- the table name given. Keep every name quoted.

-- The index's key is at most 2 * (200 + 400) + 8 = 1,208 bytes, under the 1,700 of a nonclustered index.
CREATE TABLE [baton_console_audit] (
    [id] BIGINT IDENTITY(1, 1) NOT NULL,
    [at_utc] DATETIME2(6) NOT NULL,
    [principal] NVARCHAR(200) NOT NULL,
    [action] NVARCHAR(40) NOT NULL,
    [queue_name] NVARCHAR(200) COLLATE Latin1_General_100_BIN2 NOT NULL,
    [target] NVARCHAR(400) COLLATE Latin1_General_100_BIN2 NULL,
    [verdict] NVARCHAR(200) NULL,
    [force_flag] SMALLINT NOT NULL,
    [evidence] NVARCHAR(MAX) NULL,
    [outcome] NVARCHAR(20) NOT NULL,
    [result] NVARCHAR(1000) NOT NULL,
    CONSTRAINT [baton_console_audit_pk] PRIMARY KEY ([id])
);

CREATE INDEX [baton_console_audit_row] ON [baton_console_audit] ([queue_name], [target], [id]);
