-- The example schema, MariaDB 10.6+ and MySQL 8.0.13+: the same tables and columns as postgres.sql, from which
-- jOOQ's classes are generated (SchemaFilesTest checks that the two agree).
-- Time columns are DATETIME(6) holding UTC: Baton writes and compares them with UTC_TIMESTAMP(6), and so do the
-- defaults here (an expression default, MySQL 8.0.13+). Not TIMESTAMP: it ends on 2038-01-19 and is read and written
-- in the session's time zone, so verify() refuses it for lease, backoff and condition columns.
-- The character set is said per table: a database created with latin1 cannot store a plate like 粤B12345.
-- Every index and constraint name starts with its table's name, so that a copy of the schema can be made
-- under other table names (ExampleSchema.create).

-- Seed 000: orders paid through a gateway, pushed to a third party by a timer job.
CREATE TABLE orders (
    id                     BIGINT        NOT NULL PRIMARY KEY,
    amount_cents           BIGINT        NOT NULL,
    payment_status         INT           NOT NULL DEFAULT 0,  -- PaymentStatus: 0 PENDING, 1 PAID, 2 FAILED, 3 EXPIRED
    payment_transaction_id VARCHAR(64)   NULL,
    created_at             DATETIME(6)   NOT NULL DEFAULT (UTC_TIMESTAMP(6)),
    paid_at                DATETIME(6)   NULL,
    closed_at              DATETIME(6)   NULL,
    sync_status            INT           NOT NULL DEFAULT 0,  -- SyncStatus: 0 PENDING, 1 PROCESSING, 2 COMPLETED, ...
    third_party_guid       VARCHAR(64)   NULL,
    lease_until            DATETIME(6)   NULL,                -- the claim queue's bookkeeping columns
    claim_token            BIGINT        NULL,
    attempts               INT           NOT NULL DEFAULT 0,
    next_attempt_at        DATETIME(6)   NULL,
    last_error             VARCHAR(1000) NULL,
    CONSTRAINT orders_payment_tx_uq UNIQUE (payment_transaction_id)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4;
-- serves the sync queue's claim: sync_status = 0 AND payment_status = 1 ... ORDER BY id
CREATE INDEX orders_sync_claim_ix ON orders (sync_status, payment_status, id);
-- serves the expiry sweep: payment_status = 0 AND created_at < now - 15 minutes
CREATE INDEX orders_payment_age_ix ON orders (payment_status, created_at);

-- What a paid order credits, once: the unique key refuses a second entry of a type for one order.
CREATE TABLE payment_ledger (
    id            BIGINT      NOT NULL AUTO_INCREMENT PRIMARY KEY,
    order_id      BIGINT      NOT NULL,
    entry_type    VARCHAR(16) NOT NULL,
    amount_cents  BIGINT      NOT NULL,
    created_at    DATETIME(6) NOT NULL DEFAULT (UTC_TIMESTAMP(6)),
    CONSTRAINT payment_ledger_entry_uq UNIQUE (order_id, entry_type)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4;

-- Seed 001: balances, purchases paid from them, and the ledger of every movement.
CREATE TABLE accounts (
    user_id               BIGINT NOT NULL PRIMARY KEY,
    opening_balance_cents BIGINT NOT NULL,
    balance_cents         BIGINT NOT NULL
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4;
CREATE TABLE purchases (
    id           BIGINT      NOT NULL PRIMARY KEY,
    user_id      BIGINT      NOT NULL,
    amount_cents BIGINT      NOT NULL,
    status       VARCHAR(16) NOT NULL,                       -- PurchaseStatus: UNPAID, PAID, DECLINED
    paid_at      DATETIME(6) NULL
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4;
CREATE TABLE balance_ledger (
    id           BIGINT      NOT NULL AUTO_INCREMENT PRIMARY KEY,
    user_id      BIGINT      NOT NULL,
    purchase_id  BIGINT      NOT NULL,
    entry_type   VARCHAR(16) NOT NULL,
    amount_cents BIGINT      NOT NULL,                       -- signed: a debit is negative
    created_at   DATETIME(6) NOT NULL DEFAULT (UTC_TIMESTAMP(6)),
    CONSTRAINT balance_ledger_entry_uq UNIQUE (user_id, purchase_id, entry_type)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4;
-- The naive design's ledger: the same columns without the unique key.
CREATE TABLE naive_balance_ledger (
    id           BIGINT      NOT NULL AUTO_INCREMENT PRIMARY KEY,
    user_id      BIGINT      NOT NULL,
    purchase_id  BIGINT      NOT NULL,
    entry_type   VARCHAR(16) NOT NULL,
    amount_cents BIGINT      NOT NULL,
    created_at   DATETIME(6) NOT NULL DEFAULT (UTC_TIMESTAMP(6))
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4;

-- Seed 003: parking bills paid from several phones, and coupons reserved while a payment runs.
CREATE TABLE parking_bills (
    id           BIGINT      NOT NULL AUTO_INCREMENT PRIMARY KEY,
    plate        VARCHAR(16) NOT NULL,
    open_plate   VARCHAR(16) NULL,                           -- = plate while the bill is open, NULL once closed
    status       VARCHAR(16) NOT NULL,                       -- BillStatus: INIT, PAYING, PAID, FAILED, CANCELED, EXPIRED
    amount_cents BIGINT      NOT NULL,
    coupon_id    BIGINT      NULL,
    created_at   DATETIME(6) NOT NULL DEFAULT (UTC_TIMESTAMP(6)),
    paying_since DATETIME(6) NULL,
    closed_at    DATETIME(6) NULL,
    CONSTRAINT parking_bills_open_plate_uq UNIQUE (open_plate)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4;
CREATE INDEX parking_bills_status_ix ON parking_bills (status, paying_since);
CREATE TABLE parking_coupons (
    id          BIGINT      NOT NULL PRIMARY KEY,
    plate       VARCHAR(16) NOT NULL,
    status      VARCHAR(16) NOT NULL,                        -- CouponStatus: AVAILABLE, RESERVED, USED
    bill_id     BIGINT      NULL,
    reserved_at DATETIME(6) NULL,
    used_at     DATETIME(6) NULL
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4;
CREATE INDEX parking_coupons_status_ix ON parking_coupons (status, reserved_at);

-- Seed 004: background tasks and the record of every execution.
CREATE TABLE tasks (
    id        BIGINT        NOT NULL PRIMARY KEY,
    task_type VARCHAR(32)   NOT NULL,
    payload   VARCHAR(1000) NOT NULL
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4;
CREATE TABLE task_executions (
    id              BIGINT        NOT NULL AUTO_INCREMENT PRIMARY KEY,
    task_id         BIGINT        NOT NULL,
    trigger_source  VARCHAR(16)   NOT NULL,                  -- SCHEDULE, MANUAL, DELAYED
    idempotency_key VARCHAR(255)  NOT NULL,
    key_fence       BIGINT        NOT NULL,                  -- proves which trigger owns the key
    status          INT           NOT NULL,                  -- ExecutionStatus: 1 PENDING, 2 RUNNING, 3 SUCCEEDED, 4 FAILED
    execute_at      DATETIME(6)   NULL,                      -- a delayed trigger: not before
    created_at      DATETIME(6)   NOT NULL DEFAULT (UTC_TIMESTAMP(6)),
    finished_at     DATETIME(6)   NULL,
    result          VARCHAR(1000) NULL,
    lease_until     DATETIME(6)   NULL,
    claim_token     BIGINT        NULL,
    attempts        INT           NOT NULL DEFAULT 0,
    next_attempt_at DATETIME(6)   NULL,
    last_error      VARCHAR(1000) NULL
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4;
CREATE INDEX task_executions_claim_ix ON task_executions (status, id);
