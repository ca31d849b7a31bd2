-- Each memory as a search reads it: what ranking needs and nothing else. A common word
-- brings a thousand candidates, and reading them from `memory` read every row's sentence,
-- tags and owner-coded terms, three times the bytes ranking uses (BENCHMARKS.md, "The
-- candidates' own rows"). `terms` is `memory.search_text` without the owner code, the rule
-- memory_bank_store::terms::candidate_terms states (a test holds the two equal): every
-- stored term starts with `u` or `s` and the same ten hex digits, the owner's, so
-- `' u' || hex` is found only at a term's start. Triggers, so no write path can forget it.
CREATE TABLE memory_candidate (
    seq        INTEGER PRIMARY KEY,
    user_id    TEXT    NOT NULL,
    scope      TEXT    NOT NULL,
    id         TEXT    NOT NULL,
    created_at INTEGER NOT NULL,
    terms      TEXT    NOT NULL
);

INSERT INTO memory_candidate (seq, user_id, scope, id, created_at, terms)
    SELECT seq, user_id, scope, id, created_at,
           substr(replace(replace(' ' || search_text, ' u' || substr(search_text, 2, 10), ' u'),
                          ' s' || substr(search_text, 2, 10), ' s'), 2)
    FROM memory;

CREATE TRIGGER memory_candidate_in AFTER INSERT ON memory BEGIN
    INSERT INTO memory_candidate (seq, user_id, scope, id, created_at, terms)
    VALUES (NEW.seq, NEW.user_id, NEW.scope, NEW.id, NEW.created_at,
            substr(replace(replace(' ' || NEW.search_text, ' u' || substr(NEW.search_text, 2, 10), ' u'),
                           ' s' || substr(NEW.search_text, 2, 10), ' s'), 2));
END;

CREATE TRIGGER memory_candidate_out AFTER DELETE ON memory BEGIN
    DELETE FROM memory_candidate WHERE seq = OLD.seq;
END;

CREATE TRIGGER memory_candidate_changed AFTER UPDATE OF seq, user_id, scope, id, created_at, search_text ON memory BEGIN
    DELETE FROM memory_candidate WHERE seq = OLD.seq;
    INSERT INTO memory_candidate (seq, user_id, scope, id, created_at, terms)
    VALUES (NEW.seq, NEW.user_id, NEW.scope, NEW.id, NEW.created_at,
            substr(replace(replace(' ' || NEW.search_text, ' u' || substr(NEW.search_text, 2, 10), ' u'),
                           ' s' || substr(NEW.search_text, 2, 10), ' s'), 2));
END;
