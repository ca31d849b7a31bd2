-- Earlier versions of edited memories: owner-scoped like memories, deleted with them.
-- `created_at` is when that version was written, `replaced_at` when an edit replaced it.
CREATE TABLE IF NOT EXISTS memory_revision (
    id            VARCHAR(64)  NOT NULL,
    memory_id     VARCHAR(64)  NOT NULL,
    user_id       VARCHAR(64)  NOT NULL,
    content       TEXT         NOT NULL,
    tags          JSON         NULL,
    confirmed_via ENUM('app', 'elicitation', 'cli', 'import') NULL DEFAULT NULL,
    created_at    TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP(3),
    replaced_at   TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP(3),
    PRIMARY KEY (id),
    KEY memory_revision_memory (memory_id, user_id, replaced_at, id)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;

-- Proposals may now ask for an edit.
ALTER TABLE proposals MODIFY action ENUM('save', 'delete', 'edit') NOT NULL;
