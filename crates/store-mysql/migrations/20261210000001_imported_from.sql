-- Marks the `imported_from` columns of `memory` and `memory_revision` (an import
-- confirms nothing: an imported memory says confirmed_via 'import', and what its file
-- claimed about how it was confirmed is kept beside it as a JSON object). The columns
-- are added in code right after the migrations (`schema::ADDED_COLUMNS`): a database
-- adopted from an older release replays every migration, and MySQL 8 has no
-- `ADD COLUMN IF NOT EXISTS`.
DO 0;
