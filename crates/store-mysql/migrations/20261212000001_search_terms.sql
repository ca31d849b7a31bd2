-- How far `memory.search_text` has been rewritten to the app's current term scheme
-- (memory_bank_store::terms::TERMS_VERSION): one row. Databases made before it start at
-- scheme 1 (words and CJK bigrams, no stems), and the service rewrites them in the
-- background from each memory's own text. Idempotent: an adopted database replays it.
CREATE TABLE IF NOT EXISTS search_terms (
    id           TINYINT      NOT NULL PRIMARY KEY,
    version      INT          NOT NULL,
    done_through VARCHAR(64)  NULL,
    CHECK (id = 1)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;
INSERT IGNORE INTO search_terms (id, version, done_through) VALUES (1, 1, NULL);
