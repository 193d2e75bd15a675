-- Baton transaction receipts (Baton.inTransaction, Baton.receipts()), PostgreSQL 12+.
-- Each transaction Baton runs writes one random receipt. When the connection is lost on the COMMIT, the retry writes
-- the same receipt first: a row already there means the lost COMMIT took effect, and the work is not run again; the
-- primary key makes the retry wait for the lost attempt if it is still running. Rows older than an hour are deleted
-- by Baton. The only copy of this DDL: baton.ownTables() runs this file, renaming the quoted table and the names
-- derived from it (<table>_<suffix>) for the table name given. Keep every name quoted.

CREATE TABLE "baton_receipts" (
    "receipt" BIGINT NOT NULL PRIMARY KEY,
    "created_at" TIMESTAMPTZ NOT NULL
);

CREATE INDEX "baton_receipts_created_at" ON "baton_receipts" ("created_at");
