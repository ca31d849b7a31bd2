-- Proposals: what agents ask for (a memory to save, or one to delete), waiting for
-- the person. Owner-scoped like memories; `expired` is computed from `expires_at`.
-- The two new `memory` columns (confirmed_via, proposed_by) are added in code right
-- after the migrations (`schema::add_columns`): MySQL 8 has no ADD COLUMN IF NOT EXISTS.
CREATE TABLE IF NOT EXISTS proposals (
    id          VARCHAR(64)  NOT NULL,
    user_id     VARCHAR(64)  NOT NULL,
    org_id      VARCHAR(64)  NOT NULL,
    action      ENUM('save', 'delete') NOT NULL,
    status      ENUM('pending', 'accepted', 'rejected') NOT NULL,
    content     TEXT         NOT NULL,
    tags        JSON         NULL,
    contexts    JSON         NOT NULL,
    memory_id   VARCHAR(64)  NULL,
    proposed_by VARCHAR(128) NULL,
    created_at  TIMESTAMP(3) NOT NULL,
    expires_at  TIMESTAMP(3) NOT NULL,
    decided_at  TIMESTAMP(3) NULL DEFAULT NULL,
    PRIMARY KEY (id),
    -- The Inbox: a user's pending proposals, newest first.
    KEY proposals_user_status (user_id, status, created_at, id)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;
