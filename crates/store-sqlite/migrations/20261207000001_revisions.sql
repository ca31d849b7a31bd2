-- Earlier versions of edited memories: owner-scoped like memories, deleted with them.
-- `created_at` is when that version was written, `replaced_at` when an edit replaced it.
CREATE TABLE memory_revision (
    id            TEXT PRIMARY KEY,
    memory_id     TEXT NOT NULL,
    user_id       TEXT NOT NULL,
    content       TEXT NOT NULL,
    tags          TEXT CHECK (tags IS NULL OR json_type(tags) = 'array'),
    confirmed_via TEXT CHECK (confirmed_via IS NULL OR confirmed_via IN ('app', 'elicitation', 'cli', 'import')),
    created_at    INTEGER NOT NULL,
    replaced_at   INTEGER NOT NULL
);
CREATE INDEX memory_revision_memory ON memory_revision (memory_id, user_id, replaced_at DESC, id DESC);

-- Proposals may now ask for an edit. SQLite cannot change a CHECK constraint in place,
-- so the table is rebuilt with the same columns and the wider check.
CREATE TABLE proposals_with_edits (
    id          TEXT PRIMARY KEY,
    user_id     TEXT NOT NULL,
    org_id      TEXT NOT NULL,
    action      TEXT NOT NULL CHECK (action IN ('save', 'delete', 'edit')),
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
INSERT INTO proposals_with_edits (id, user_id, org_id, action, status, content, tags, contexts, memory_id, proposed_by, created_at, expires_at, decided_at)
    SELECT id, user_id, org_id, action, status, content, tags, contexts, memory_id, proposed_by, created_at, expires_at, decided_at FROM proposals;
DROP TABLE proposals;
ALTER TABLE proposals_with_edits RENAME TO proposals;
CREATE INDEX proposals_user_status ON proposals (user_id, status, created_at DESC, id DESC);
