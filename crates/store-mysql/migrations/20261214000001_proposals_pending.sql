-- Marks the `proposals_pending` index of `proposals` (status, expires_at): how many
-- proposals wait over every user (`serve --metrics`' proposals_pending gauge) is one
-- range of it. It is added in code right after the migrations (`schema::ADDED_INDEXES`):
-- a database adopted from an older release replays every migration, two nodes of a
-- cluster may run `db migrate` side by side, and MySQL 8 has no `CREATE INDEX IF NOT EXISTS`.
DO 0;
