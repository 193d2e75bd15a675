-- Seed 000 on MariaDB: orders paid through a gateway, pushed to a third party by a timer job.
CREATE TABLE IF NOT EXISTS orders (
    id                     BIGINT        NOT NULL PRIMARY KEY,
    amount_cents           BIGINT        NOT NULL,
    payment_status         INT           NOT NULL DEFAULT 0,
    payment_transaction_id VARCHAR(64)   NULL UNIQUE,
    created_at             TIMESTAMP(6)  NOT NULL DEFAULT CURRENT_TIMESTAMP(6),
    paid_at                TIMESTAMP(6)  NULL,
    closed_at              TIMESTAMP(6)  NULL,
    sync_status            INT           NOT NULL DEFAULT 0,
    third_party_guid       VARCHAR(64)   NULL,
    lease_until            TIMESTAMP(6)  NULL,
    claim_token            BIGINT        NULL,
    attempts               INT           NOT NULL DEFAULT 0,
    next_attempt_at        TIMESTAMP(6)  NULL,
    last_error             VARCHAR(1000) NULL,
    INDEX orders_sync_claim_ix (sync_status, payment_status, id),
    INDEX orders_payment_age_ix (payment_status, created_at)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4;
CREATE TABLE IF NOT EXISTS payment_ledger (
    id            BIGINT       NOT NULL AUTO_INCREMENT PRIMARY KEY,
    order_id      BIGINT       NOT NULL,
    entry_type    VARCHAR(16)  NOT NULL,
    amount_cents  BIGINT       NOT NULL,
    created_at    TIMESTAMP(6) NOT NULL DEFAULT CURRENT_TIMESTAMP(6),
    CONSTRAINT payment_ledger_entry_uq UNIQUE (order_id, entry_type)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4;
