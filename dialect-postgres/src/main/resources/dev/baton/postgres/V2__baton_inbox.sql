-- Baton inbox (dev.baton.Inbox), PostgreSQL 12+.
-- The only copy of this DDL: baton.ownTables() runs this file, renaming the quoted table and the names derived
-- from it (<table>_<suffix>) for the table name given. Keep every name quoted.

CREATE TABLE "baton_inbox" (
    "source" VARCHAR(255) NOT NULL,
    "message_id" VARCHAR(255) NOT NULL,
    "receipt" BIGINT NOT NULL,
    "received_at" TIMESTAMPTZ NOT NULL,
    PRIMARY KEY ("source", "message_id")
);

CREATE INDEX "baton_inbox_received_at" ON "baton_inbox" ("received_at");
