-- Proposals: what agents ask for (a memory to save, or one to delete), waiting for
-- the person. Owner-scoped like memories; `expired` is computed from `expires_at`.
CREATE TABLE proposals (
    id          TEXT PRIMARY KEY,
    user_id     TEXT NOT NULL,
    org_id      TEXT NOT NULL,
    action      TEXT NOT NULL CHECK (action IN ('save', 'delete')),
    status      TEXT NOT NULL CHECK (status IN ('pending', 'accepted', 'rejected')),
    content     TEXT NOT NULL,
    tags        TEXT CHECK (tags IS NULL OR json_type(tags) = 'array'),
    contexts    TEXT NOT NULL DEFAULT '[]' CHECK (json_type(contexts) = 'array'),
    memory_id   TEXT,
    proposed_by TEXT,
    created_at  INTEGER NOT NULL,
    expires_at  INTEGER NOT NULL,
    decided_at  INTEGER
);
-- The Inbox: a user's pending proposals, newest first.
CREATE INDEX proposals_user_status ON proposals (user_id, status, created_at DESC, id DESC);

-- How each memory was confirmed, and by which MCP client it was proposed.
ALTER TABLE memory ADD COLUMN confirmed_via TEXT CHECK (confirmed_via IS NULL OR confirmed_via IN ('app', 'elicitation', 'cli', 'import'));
ALTER TABLE memory ADD COLUMN proposed_by TEXT;
