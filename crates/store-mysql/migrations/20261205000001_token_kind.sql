-- Marks the `kind` column of `api_tokens` (`full`, `agent`, `local`: what a token may
-- do). The column itself is added in code right after the migrations
-- (`schema::add_token_kind`): a database adopted from an older release replays every
-- migration, and MySQL 8 has no `ADD COLUMN IF NOT EXISTS`.
DO 0;
