-- Marks the `against_content` and `against_tags` columns of `proposals` (what an edit or
-- delete proposal was made against: the memory's words then). They are added in code
-- right after the migrations (`schema::ADDED_COLUMNS`): a database adopted from an older
-- release replays every migration, and MySQL 8 has no `ADD COLUMN IF NOT EXISTS`.
DO 0;
