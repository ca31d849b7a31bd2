-- Accounts, memories and contexts for MySQL 8 / MariaDB 10.6+.
--
-- `IF NOT EXISTS` everywhere: a database whose tables were created by an older
-- memory-bank (before migrations were tracked) is adopted as it is, and
-- `ensure_search_index` then repairs what differs (created_at defaults, the index).
-- No foreign keys: managed MySQL services forbid them, so the delete path removes
-- contexts itself, in the same transaction.
-- `utf8mb4_bin`: ids compare byte-wise (keyset paging) and search terms match exactly.
-- Times are TIMESTAMP(3), UTC (every connection sets time_zone = '+00:00').

CREATE TABLE IF NOT EXISTS users (
    id         VARCHAR(64)  NOT NULL,
    -- Case-insensitive, so ALICE@example.com and alice@example.com are one user.
    email      VARCHAR(254) NOT NULL COLLATE utf8mb4_unicode_ci,
    created_at TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP(3),
    PRIMARY KEY (id),
    UNIQUE KEY users_email (email)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;

CREATE TABLE IF NOT EXISTS orgs (
    id         VARCHAR(64)  NOT NULL,
    name       VARCHAR(128) NOT NULL,
    created_at TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP(3),
    PRIMARY KEY (id)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;

CREATE TABLE IF NOT EXISTS org_members (
    org_id     VARCHAR(64)  NOT NULL,
    user_id    VARCHAR(64)  NOT NULL,
    created_at TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP(3),
    PRIMARY KEY (org_id, user_id),
    KEY org_members_user_id (user_id)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;

CREATE TABLE IF NOT EXISTS api_tokens (
    id         VARCHAR(64)  NOT NULL,
    user_id    VARCHAR(64)  NOT NULL,
    token_hash VARCHAR(128) NOT NULL,
    created_at TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP(3),
    revoked_at TIMESTAMP(3) NULL DEFAULT NULL,
    PRIMARY KEY (id),
    UNIQUE KEY api_tokens_token_hash (token_hash)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;

-- `search_text` holds the app's user-scoped terms (memory_bank_store::terms), the only
-- column the FULLTEXT index covers. The index itself is created by
-- `ensure_search_index`, not here, so fresh and upgraded databases share one path.
CREATE TABLE IF NOT EXISTS memory (
    id          VARCHAR(64)          NOT NULL,
    user_id     VARCHAR(64)          NOT NULL,
    org_id      VARCHAR(64)          NOT NULL,
    scope       ENUM('user', 'org')  NOT NULL DEFAULT 'user',
    content     TEXT                 NOT NULL,
    source      VARCHAR(64)          NOT NULL,
    tags        JSON                 NULL,
    search_text MEDIUMTEXT           NOT NULL,
    created_at  TIMESTAMP(3)         NOT NULL DEFAULT CURRENT_TIMESTAMP(3),
    updated_at  TIMESTAMP(3)         NOT NULL DEFAULT CURRENT_TIMESTAMP(3) ON UPDATE CURRENT_TIMESTAMP(3),
    PRIMARY KEY (id),
    -- The owner predicate plus newest-first keyset paging in one index scan.
    KEY memory_user_id (user_id, created_at, id)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;

CREATE TABLE IF NOT EXISTS memory_context (
    id         VARCHAR(64)  NOT NULL,
    memory_id  VARCHAR(64)  NOT NULL,
    citation   JSON         NULL,
    snippet    TEXT         NOT NULL,
    origin     ENUM('active_conversation', 'searched_conversation') NULL,
    created_at TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP(3),
    PRIMARY KEY (id),
    KEY memory_context_memory_id (memory_id)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;
