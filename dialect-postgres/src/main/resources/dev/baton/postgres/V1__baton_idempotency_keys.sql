-- Baton idempotency keys (dev.baton.IdempotencyKeys), PostgreSQL 12+.
-- The only copy of this DDL: baton.ownTables() runs this file, renaming the quoted table and the names derived
-- from it (<table>_<suffix>) for the table name given. Keep every name quoted.

CREATE TABLE "baton_idempotency_keys" (
    "scope" VARCHAR(255) NOT NULL,
    "idempotency_key" VARCHAR(255) NOT NULL,
    "fingerprint" VARCHAR(255) NOT NULL,
    "state" VARCHAR(16) NOT NULL CHECK ("state" IN ('in_progress', 'completed')),
    "token" BIGINT NOT NULL,
    "attempts" INTEGER NOT NULL,
    "locked_until" TIMESTAMPTZ NULL,
    "response" BYTEA NULL,
    "created_at" TIMESTAMPTZ NOT NULL,
    "updated_at" TIMESTAMPTZ NOT NULL,
    PRIMARY KEY ("scope", "idempotency_key")
);

CREATE INDEX "baton_idempotency_keys_updated_at" ON "baton_idempotency_keys" ("updated_at");
