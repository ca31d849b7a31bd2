-- Accounts: users, orgs, membership, API tokens (hashes only).
CREATE TABLE users (
    id         TEXT PRIMARY KEY,
    email      TEXT NOT NULL UNIQUE COLLATE NOCASE,
    created_at INTEGER NOT NULL
);

CREATE TABLE orgs (
    id         TEXT PRIMARY KEY,
    name       TEXT NOT NULL,
    created_at INTEGER NOT NULL
);

CREATE TABLE org_members (
    org_id     TEXT NOT NULL,
    user_id    TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    PRIMARY KEY (org_id, user_id)
);
CREATE INDEX org_members_user_id ON org_members (user_id);

CREATE TABLE api_tokens (
    id         TEXT PRIMARY KEY,
    user_id    TEXT NOT NULL,
    token_hash TEXT NOT NULL UNIQUE,
    created_at INTEGER NOT NULL,
    revoked_at INTEGER
);

-- Memories. Times are milliseconds since the Unix epoch, UTC.
-- `seq` is the stable integer key the FTS table's rowid points at (a bare rowid may
-- change on VACUUM); `id` is the public, time-sortable id.
CREATE TABLE memory (
    seq         INTEGER PRIMARY KEY,
    id          TEXT NOT NULL UNIQUE,
    user_id     TEXT NOT NULL,
    org_id      TEXT NOT NULL,
    scope       TEXT NOT NULL DEFAULT 'user' CHECK (scope IN ('user', 'org')),
    content     TEXT NOT NULL,
    source      TEXT NOT NULL CHECK (length(source) <= 64),
    tags        TEXT CHECK (tags IS NULL OR json_type(tags) = 'array'),
    search_text TEXT NOT NULL,
    created_at  INTEGER NOT NULL,
    updated_at  INTEGER NOT NULL
);
-- Serves the owner predicate and newest-first keyset paging in one index.
CREATE INDEX memory_user_created ON memory (user_id, created_at DESC, id DESC);

-- No foreign key, as on the MySQL backend: the delete path removes contexts itself.
CREATE TABLE memory_context (
    id         TEXT PRIMARY KEY,
    memory_id  TEXT NOT NULL,
    citation   TEXT CHECK (citation IS NULL OR json_type(citation) = 'object'),
    snippet    TEXT NOT NULL,
    origin     TEXT CHECK (origin IS NULL OR origin IN ('active_conversation', 'searched_conversation')),
    created_at INTEGER NOT NULL
);
CREATE INDEX memory_context_memory_id ON memory_context (memory_id);

-- The full-text table `memory_fts` is not created here: `ensure_search_index` creates
-- it (on a fresh database and after every migration), so there is one code path.
