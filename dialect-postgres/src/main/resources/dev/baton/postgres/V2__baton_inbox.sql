-- Baton inbox (dev.baton.Inbox), PostgreSQL 12+.
-- The same DDL as baton.schema() renders for the default table name; Baton quotes every name.

CREATE TABLE "baton_inbox" (
    "source" VARCHAR(255) NOT NULL,
    "message_id" VARCHAR(255) NOT NULL,
    "receipt" BIGINT NOT NULL,
    "received_at" TIMESTAMPTZ NOT NULL,
    PRIMARY KEY ("source", "message_id")
);

CREATE INDEX "baton_inbox_received_at" ON "baton_inbox" ("received_at");
