-- How far `memory.search_text` has been rewritten to the app's current term scheme
-- (memory_bank_store::terms::TERMS_VERSION): one row. Banks made before it start at
-- scheme 1 (words and CJK bigrams, no stems), and the app rewrites them in the
-- background from each memory's own text.
CREATE TABLE search_terms (
    id           INTEGER PRIMARY KEY CHECK (id = 1),
    version      INTEGER NOT NULL,
    done_through TEXT
);
INSERT INTO search_terms (id, version, done_through) VALUES (1, 1, NULL);
