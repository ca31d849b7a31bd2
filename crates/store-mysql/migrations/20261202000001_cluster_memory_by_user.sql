-- Marks the change of `memory`'s primary key to (user_id, created_at, id), which
-- keeps each user's rows together on disk (search reads a few adjacent pages instead
-- of one page per matching row).
--
-- The ALTER itself runs in code right after the migrations (`layout::cluster_by_user`),
-- because it depends on the table at hand (older schemas differ, and MySQL 8 has no
-- `DROP INDEX IF EXISTS`). This file only makes a database migrated by an earlier
-- build count as behind, so `serve` asks for `memory-bank db migrate` once.
DO 0;
