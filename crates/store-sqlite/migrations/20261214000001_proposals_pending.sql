-- How many proposals wait, over every user (`serve --metrics`' proposals_pending gauge):
-- the pending, unexpired ones are one range of this index, however many decided ones the
-- table keeps.
CREATE INDEX IF NOT EXISTS proposals_pending ON proposals (status, expires_at);
