-- Team banks (docs/teams.md): each org's policy and its audit log. The new columns
-- (org_members.role, memory.confirmed_by, proposals.scope) and their keys are added in
-- code right after the migrations (`schema::ADDED_COLUMNS`), and each org's first member
-- becomes its owner there (`schema::add_roles`).
--
-- The audit log is append-only by construction: the store has no statement that changes
-- or removes a line, except removing a deleted org's whole log. (No trigger enforces it
-- here, unlike on SQLite: creating triggers needs privileges a hosted MySQL may not grant.)
CREATE TABLE IF NOT EXISTS org_policy (
    org_id             VARCHAR(64)     NOT NULL,
    memory_enabled     BOOLEAN         NOT NULL DEFAULT TRUE,
    agents_may_propose BOOLEAN         NOT NULL DEFAULT TRUE,
    max_memories       BIGINT UNSIGNED NULL DEFAULT NULL,
    updated_at         TIMESTAMP(3)    NOT NULL,
    PRIMARY KEY (org_id)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;

-- Ids and lengths only, never a memory's text.
CREATE TABLE IF NOT EXISTS org_audit (
    seq           BIGINT       NOT NULL AUTO_INCREMENT,
    org_id        VARCHAR(64)  NOT NULL,
    at            TIMESTAMP(3) NOT NULL,
    actor_id      VARCHAR(64)  NOT NULL,
    action        ENUM('proposed', 'accepted', 'rejected', 'saved', 'edited', 'deleted') NOT NULL,
    memory_id     VARCHAR(64)  NULL DEFAULT NULL,
    proposal_id   VARCHAR(64)  NULL DEFAULT NULL,
    content_chars INT UNSIGNED NULL DEFAULT NULL,
    PRIMARY KEY (seq),
    KEY org_audit_org (org_id, seq)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;
