-- Baton transaction receipts (Baton.inTransaction, Baton.receipts()), SQL Server 2016+.
-- Each transaction Baton runs writes one random receipt. When the connection is lost on the COMMIT, the retry writes
-- the same receipt first: a row already there means the lost COMMIT took effect, and the work is not run again; the
-- primary key makes the retry wait for the lost attempt if it is still running. Rows older than an hour are deleted
-- by Baton. The only copy of this DDL: baton.ownTables() runs this file, renaming the quoted table and the names
-- derived from it (<table>_<suffix>) for the table name given. Keep every name quoted.

CREATE TABLE [baton_receipts] (
    [receipt] BIGINT NOT NULL,
    [created_at] DATETIME2(6) NOT NULL,
    CONSTRAINT [baton_receipts_pk] PRIMARY KEY NONCLUSTERED ([receipt])
);

-- The primary key is named: the insert-if-absent probe names it in an index hint (WITH (INDEX(...))).
CREATE CLUSTERED INDEX [baton_receipts_created_at] ON [baton_receipts] ([created_at]);
