-- Baton transactional outbox (dev.baton.Outbox), PostgreSQL 12+: upgrade of V3.
-- Outbox.enqueue writes a random receipt with each message and, when the connection is lost after the insert was
-- sent, looks for it to tell whether the message is stored. The unique index makes a retry wait for the lost attempt's
-- insert if it is still running. Rows stored before this upgrade have none.
-- baton.ownTables() runs this file after V3 when it creates the table. Keep every name quoted.

ALTER TABLE "baton_outbox" ADD COLUMN "receipt" BIGINT NULL;

CREATE UNIQUE INDEX "baton_outbox_receipt" ON "baton_outbox" ("receipt");
