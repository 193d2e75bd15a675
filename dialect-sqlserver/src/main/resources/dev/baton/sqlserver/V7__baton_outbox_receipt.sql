-- Baton transactional outbox (dev.baton.Outbox), SQL Server 2016+: upgrade of V3.
-- Outbox.enqueue writes a random receipt with each message and, when the connection is lost after the insert was
-- sent, looks for it to tell whether the message is stored. The unique index makes a retry wait for the lost attempt's
-- insert if it is still running. Rows stored before this upgrade have none (filtered: SQL Server's unique indexes
-- allow one NULL otherwise).
-- baton.ownTables() runs this file after V3 when it creates the table. Keep every name quoted.

ALTER TABLE [baton_outbox] ADD [receipt] BIGINT NULL;

CREATE UNIQUE INDEX [baton_outbox_receipt] ON [baton_outbox] ([receipt]) WHERE [receipt] IS NOT NULL;
