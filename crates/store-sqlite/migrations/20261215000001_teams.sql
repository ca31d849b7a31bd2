-- Team banks (docs/teams.md): roles, who confirmed a team memory, each org's policy, its
-- append-only audit log, and proposals to a team bank.

ALTER TABLE org_members ADD COLUMN role TEXT NOT NULL DEFAULT 'member' CHECK (role IN ('owner', 'admin', 'member'));
-- Every org had its members as equals: its first member becomes its owner, so each org
-- has one who may change its policy and roles.
UPDATE org_members SET role = 'owner'
WHERE rowid IN (
    SELECT (SELECT m.rowid FROM org_members AS m WHERE m.org_id = o.org_id ORDER BY m.created_at, m.user_id LIMIT 1)
    FROM (SELECT DISTINCT org_id FROM org_members) AS o
);

-- A team memory's owner (`user_id`) is its org, so the owner's index and search terms
-- serve a team bank as they serve a person's; who saved it and who confirmed it (an
-- admin or owner) are kept beside.
ALTER TABLE memory ADD COLUMN saved_by TEXT;
ALTER TABLE memory ADD COLUMN confirmed_by TEXT;

CREATE TABLE org_policy (
    org_id             TEXT PRIMARY KEY,
    memory_enabled     INTEGER NOT NULL DEFAULT 1 CHECK (memory_enabled IN (0, 1)),
    agents_may_propose INTEGER NOT NULL DEFAULT 1 CHECK (agents_may_propose IN (0, 1)),
    max_memories       INTEGER CHECK (max_memories IS NULL OR max_memories >= 0),
    updated_at         INTEGER NOT NULL
);

-- Ids and lengths only, never a memory's text.
CREATE TABLE org_audit (
    seq           INTEGER PRIMARY KEY AUTOINCREMENT,
    org_id        TEXT NOT NULL,
    at            INTEGER NOT NULL,
    actor_id      TEXT NOT NULL,
    action        TEXT NOT NULL CHECK (action IN ('proposed', 'accepted', 'rejected', 'saved', 'edited', 'deleted')),
    memory_id     TEXT,
    proposal_id   TEXT,
    content_chars INTEGER
);
CREATE INDEX org_audit_org ON org_audit (org_id, seq);
-- Append-only: no line is changed, and none is removed while its org exists (deleting
-- the org removes the org first, then its log).
CREATE TRIGGER org_audit_append_only_update BEFORE UPDATE ON org_audit
BEGIN
    SELECT RAISE(ABORT, 'org_audit is append-only');
END;
CREATE TRIGGER org_audit_append_only_delete BEFORE DELETE ON org_audit
WHEN EXISTS (SELECT 1 FROM orgs WHERE id = OLD.org_id)
BEGIN
    SELECT RAISE(ABORT, 'org_audit is append-only');
END;

-- A proposal to the person's own bank (`user`) or to the active org's team bank (`org`,
-- answered in the org Inbox by its admins and owners).
ALTER TABLE proposals ADD COLUMN scope TEXT NOT NULL DEFAULT 'user' CHECK (scope IN ('user', 'org'));
CREATE INDEX proposals_org_status ON proposals (org_id, status, created_at DESC, id DESC) WHERE scope = 'org';
