-- What a token may do: `full` (admin-issued), `agent` (search, list and propose
-- only), `local` (the desktop app's embedded service, one per run).
ALTER TABLE api_tokens ADD COLUMN kind TEXT NOT NULL DEFAULT 'full' CHECK (kind IN ('full', 'agent', 'local'));
CREATE INDEX api_tokens_user_kind ON api_tokens (user_id, kind);
