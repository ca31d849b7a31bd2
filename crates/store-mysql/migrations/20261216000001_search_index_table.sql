-- How far filling the search index table (`memory_term`, created by the app: see
-- src/postings.rs) has got through `memory`, by id, so a stopped `db migrate` goes on
-- from there. One row. Idempotent: an adopted database replays it.
CREATE TABLE IF NOT EXISTS memory_term_fill (
    id           TINYINT      NOT NULL PRIMARY KEY,
    done_through VARCHAR(64)  NULL,
    CHECK (id = 1)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;
INSERT IGNORE INTO memory_term_fill (id, done_through) VALUES (1, NULL);
