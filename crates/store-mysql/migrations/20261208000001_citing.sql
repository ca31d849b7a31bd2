-- Marks the `conversation_id` column of `memory_context` (the cited session id, a
-- virtual column over the citation, with an index: which memories cite a session). The
-- column is added in code right after the migrations (`schema::ADDED_COLUMNS`): a
-- database adopted from an older release replays every migration, and MySQL 8 has no
-- `ADD COLUMN IF NOT EXISTS`.
DO 0;
